"""Benchmark capture export (``PacketResult.to_pcap``) and the trace cost it adds to a traced run.

Prints the median time to simulate a traced primer run and to write it as pcap / pcapng, per frame.
Run: .venv/bin/python benchmarks/bench_capture.py   (first run compiles the packet kernels, ~60 s)
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _timing import median_ms

from simcore.chapters import tcp_primer as chapter

CASES = {
    "primer defaults (1 flow, 5 Mbit/s, 20 s)": chapter.PrimerSetting(),
    "4 flows, 50 Mbit/s, 30 s, 1% loss": chapter.PrimerSetting(flows=4, rate_mbps=50.0, duration_s=30.0,
                                                                loss_pct=1.0, buffer_packets=400),
}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name, setting in CASES.items():
            sim_ms = median_ms(lambda s=setting: chapter.run(s), repeat=5)
            res = chapter.run(setting)
            print(f"{name}: traced run {sim_ms:.0f} ms, {res.packet_trace.time_s.size} packet events, "
                  f"{res.hop_trace.time_s.size} router hand-overs")
            for fmt, link in (("pcap", None), ("pcapng", None), ("pcap", 0)):
                path = Path(tmp) / f"x.{fmt}"
                ms = median_ms(lambda r=res, p=path, f=fmt, k=link: r.to_pcap(p, format=f, link=k), repeat=5)
                n = res.to_pcap(path, format=fmt, link=link).stat().st_size
                where = "client host" if link is None else f"link {link}"
                print(f"  {fmt:6s} at {where}: {ms:.0f} ms, {n / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
