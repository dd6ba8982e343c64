"""Coverage-guided fuzzing of the object package readers (atheris, i.e. libFuzzer for Python).

Usage: ``python benchmarks/fuzz_packaging.py [--runs N] [--hang-s S] [--seed K] [--artifacts DIR]``.

Each input goes to ``unpack`` and to a ``StreamUnpacker`` fed in pseudo-random chunks (drawn from the input's
CRC, so a crash replays exactly). A failure is anything but: both readers raise ``PackageError``, or both
return the same files and those files re-pack to the input byte for byte (the format is canonical), and no
accepted name holds a character of Unicode category Cc, Cf, Zl or Zp (checked with ``unicodedata``,
independently of the readers). Also a failure: one input taking more than ``--hang-s`` seconds (the hang
guard, a per-input alarm), or the process exceeding 1 GB of memory (libFuzzer's RSS limit: a reader that
trusts a declared size would hit it). The search starts from a small seed corpus written to a temporary
folder: valid packages, and packages built byte by byte whose names hold a refused character (bidi override,
line separator, C1 control ...); a libFuzzer dictionary holds the UTF-8 of refused and of allowed invisible
characters, so mutations put them into names. Prints the number of inputs run and inputs per second; exits
non-zero on a failure, with the offending input saved under ``--artifacts``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import unicodedata
import zlib

import atheris

with atheris.instrument_imports(include=["simcore.packaging"]):
    from simcore.packaging import PackagedFile, PackageError, StreamUnpacker, pack, unpack


class Hang(Exception):
    """An input ran longer than the hang guard allows."""


def seed_corpus() -> list[bytes]:
    """A handful of valid packages covering every field: empty, one file, folders, UTF-8, all attributes."""
    return [
        pack([]),
        pack({"index.html": b"<html><img src=a.gif></html>"}),
        pack([PackagedFile("a.txt", b"hi", "text"), PackagedFile("bin/run", b"#!/bin/sh\n", "executable")]),
        pack([PackagedFile(f"img/{i:02d}.gif", bytes([i]) * i) for i in range(6)]),
        pack([PackagedFile("é/ü.css", b"", "text"), PackagedFile("z", b"\x00\xff" * 8)]),
    ]


# Refused (FORMAT.md, "Names"): Cc, Cf, Zl, Zp; and allowed characters that look alike or are invisible.
REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp"}
TRICKY = ["\u202e", "\u202d", "\u2066", "\u2069", "\u200b", "\u200d", "\u200e", "\ufeff", "\u00ad", "\u2028",
          "\u2029", "\x85", "\x9b", "\x1b", "\u061c", "\u00a0", "\u3000", "\u0301", "\ue000"]


def by_hand(name: str, data: bytes = b"x") -> bytes:
    """One binary file in FORMAT.md's layout, built without ``pack`` (which refuses unsafe names)."""
    enc = name.encode("utf-8")
    return (b"OPKG\x01" + (1).to_bytes(4, "big") + len(enc).to_bytes(2, "big") + enc + len(data).to_bytes(8, "big")
            + b"\x00" + data)


def unsafe_seeds() -> list[bytes]:
    """Packages one refused character away from valid: 'evil<U+202E>txt.exe', 'x<U+2028>y' ..."""
    return [by_hand(f"evil{ch}txt.exe") for ch in TRICKY if unicodedata.category(ch) in REFUSED_CATEGORIES]


def dictionary() -> str:
    """libFuzzer dictionary entries: the UTF-8 bytes of each tricky character."""
    lines = []
    for ch in TRICKY:
        escaped = "".join(f"\\x{b:02x}" for b in ch.encode())
        lines.append('"' + escaped + '"\n')
    return "".join(lines)


def chunks(data: bytes) -> list[bytes]:
    """Split ``data`` at cut points drawn from its own CRC (deterministic for each input)."""
    rng = random.Random(zlib.crc32(data))
    mode = rng.randrange(3)
    if mode == 0 or len(data) < 2:
        return [data]
    if mode == 1 and len(data) <= 256:
        return [data[i : i + 1] for i in range(len(data))]
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(1, 8))))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def read_whole(data: bytes):
    try:
        return unpack(data)
    except PackageError:
        return PackageError


def read_streamed(data: bytes):
    reader = StreamUnpacker()
    files = []
    try:
        for chunk in chunks(data):
            files += reader.feed(chunk)
        reader.close()
    except PackageError:
        return PackageError
    return files


def check_one(data: bytes) -> None:
    """Raise AssertionError (or whatever escaped the codec) if ``data`` exposes a bug."""
    whole = read_whole(data)
    if whole is not PackageError:
        assert pack(whole) == data, "unpack accepted bytes that do not re-pack to themselves"
        for f in whole:
            bad = [c for c in f.name if unicodedata.category(c) in REFUSED_CATEGORIES]
            assert not bad, f"unpack accepted name {f.name!r} holding U+{ord(bad[0]):04X}"
    streamed = read_streamed(data)
    assert streamed == whole, f"stream and unpack disagree: {streamed!r} vs {whole!r}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000, help="inputs to run (default 100,000)")
    parser.add_argument("--hang-s", type=float, default=2.0, help="per-input time limit in seconds")
    parser.add_argument("--seed", type=int, default=1, help="libFuzzer's random seed")
    parser.add_argument("--artifacts", default=None, help="folder for failing inputs (default: a temp folder)")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="fuzz_packaging-")
    corpus = os.path.join(workdir, "corpus")
    os.mkdir(corpus)
    for i, blob in enumerate(seed_corpus() + unsafe_seeds()):
        with open(os.path.join(corpus, f"seed{i}"), "wb") as f:
            f.write(blob)
    dict_path = os.path.join(workdir, "names.dict")
    with open(dict_path, "w") as f:
        f.write(dictionary())
    artifacts = args.artifacts or os.path.join(workdir, "artifacts")
    os.makedirs(artifacts, exist_ok=True)

    def on_alarm(signum, frame):
        raise Hang(f"one input ran longer than {args.hang_s} s")

    signal.signal(signal.SIGALRM, on_alarm)
    state = {"count": 0, "t0": 0.0}

    def test_one_input(data: bytes) -> None:
        if state["count"] == 0:
            state["t0"] = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, args.hang_s)
        try:
            check_one(data)
        except BaseException as err:  # report, then let atheris save the input and stop
            print(f"fuzz_packaging: FAILURE after {state['count']} inputs: {type(err).__name__}: {err}", flush=True)
            print(f"fuzz_packaging: input {data!r}", flush=True)
            raise
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        state["count"] += 1
        if state["count"] >= args.runs:
            elapsed = time.perf_counter() - state["t0"]
            print(
                f"fuzz_packaging: {state['count']} inputs in {elapsed:.1f} s ({state['count'] / elapsed:,.0f} "
                f"inputs/s), 0 failures (only PackageError raised; every accepted input re-packs to itself)",
                flush=True,
            )
            sys.stderr.flush()
            shutil.rmtree(workdir, ignore_errors=True)  # no failure: nothing worth keeping
            os._exit(0)  # libFuzzer would otherwise go on; Python's atexit does not run under it anyway

    libfuzzer_args = [
        sys.argv[0],
        corpus,
        "-runs=-1",  # we stop after --runs inputs ourselves
        "-timeout=0",  # the hang guard is our per-input alarm (libFuzzer's would share the same timer)
        "-rss_limit_mb=1024",
        "-max_len=4096",
        f"-seed={args.seed}",
        f"-dict={dict_path}",
        f"-artifact_prefix={artifacts}{os.sep}",
        "-print_final_stats=0",
    ]
    print(f"fuzz_packaging: {args.runs} inputs, failing inputs would be saved under {artifacts}", flush=True)
    atheris.Setup(libfuzzer_args, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
