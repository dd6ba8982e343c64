"""Command line: ``python -m simcore figures|notebooks|warm|book|package`` (``--help`` for each)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the process exit status (0 on success, 2 for unusable arguments: one
    line on stderr, no traceback; ``package`` reports bad packages with status 1)."""
    from simcore.figures import chapters
    from simcore.packaging.cli import add_package_parser

    parser = argparse.ArgumentParser(prog="python -m simcore", description="simcore lab utilities")
    sub = parser.add_subparsers(dest="command", required=True)
    fig = sub.add_parser("figures", help="write chapters' static figures (PNG + HTML) into a folder")
    fig.add_argument("chapter", nargs="?", default="all", choices=[*chapters(), "all"])
    fig.add_argument("--out", default="figures", help="output folder (default: figures)")
    fig.add_argument("--no-png", action="store_true", help="write HTML only (no browser needed)")
    nbs = sub.add_parser("notebooks", help="execute notebooks and store them with only checked outputs")
    nbs.add_argument("paths", nargs="+")
    nbs.add_argument("--fold", action="store_true",
                     help="only fold the cells tagged deep-dive (they open folded), without executing")
    warm = sub.add_parser("warm", help="compile and cache every numba kernel")
    warm.add_argument("--check", action="store_true",
                      help="fail (exit 1) if any kernel had to be compiled instead of loaded from the cache")
    add_package_parser(sub)
    book = sub.add_parser("book", help="execute the chapters once and build them as a static book (book/_build)")
    book.add_argument("--jobs", type=_at_least_one, default=2, help="chapters executed at once (default: 2)")
    book.add_argument("--force", action="store_true", help="re-execute every chapter, even if unchanged")
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except _UsageError as exc:  # bad input: one line, no traceback, argparse's exit status for usage errors
        print(f"python -m simcore {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the file system refused (permissions, a full disk): one line too
        print(f"python -m simcore {args.command}: error: {exc.strerror or exc}"
              + (f": {exc.filename}" if exc.filename else ""), file=sys.stderr)
        return 2


def _at_least_one(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed: must be an integer >= 1")
    return n


class _UsageError(Exception):
    """An argument that names something unusable (a folder whose parent is missing, a missing file)."""


def _out_folder(out: str) -> None:
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise _UsageError(f"--out {out}: exists and is not a folder")
    if not path.exists() and not path.resolve().parent.is_dir():
        raise _UsageError(f"--out {out}: its parent folder {str(path.resolve().parent)!r} does not exist "
                          "(create it first)")


def _run(args: argparse.Namespace) -> int:
    from simcore.figures import write_figures
    from simcore.packaging.cli import run_package

    if args.command == "figures":
        _out_folder(args.out)
        paths = write_figures(args.chapter, args.out, png=not args.no_png)
        print(f"wrote {len(paths)} files under {args.out}/")
    elif args.command == "notebooks":
        from simcore.notebooks import execute_and_store, fold_and_store

        for path in args.paths:
            if not Path(path).is_file():
                raise _UsageError(f"{path}: no such notebook file")
        for path in args.paths:
            if args.fold:
                print(f"{path}: {fold_and_store(path)} cells folded or unfolded")
            else:
                print(f"executed and stored {execute_and_store(path)}")
    elif args.command == "warm":
        from simcore.warm import compiled_here, warm_all

        print(f"numba kernels ready in {warm_all():.1f} s")
        missed = compiled_here()
        if args.check and missed:
            print(f"compiled instead of loaded from numba's cache ({len(missed)}): {', '.join(missed)}",
                  file=sys.stderr)
            return 1
        if args.check:
            print("every kernel was loaded from numba's cache")
    elif args.command == "package":
        return run_package(args)
    elif args.command == "book":
        return _book(args.jobs, args.force)
    return 0


def _book(jobs: int, force: bool) -> int:
    from simcore.book import build

    report = build(Path.cwd(), jobs=jobs, force=force)
    for name, seconds in report.executed:
        print(f"executed {name} in {seconds:.0f} s")
    if report.reused:
        print(f"unchanged, not re-executed: {', '.join(report.reused)}")
    for line in report.warnings + report.broken_links:
        print(line, file=sys.stderr)
    if not report.ok:
        print(f"book: FAILED (exit code {report.returncode}, {len(report.warnings)} warnings, "
              f"{len(report.broken_links)} broken links; log in book/_build/build.log)", file=sys.stderr)
        return 1
    print(f"book: {report.html_dir / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
