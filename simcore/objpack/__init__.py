"""simcore.objpack: object packaging (Fujinoki & Gollamudi) on the packet level, and a loopback check.

- ``ObjpackParams`` / ``simulate_objpack(params, seed) -> ObjpackResult``: a page of files fetched from
  the paper's testbed (server and client on a 10 Mbit/s hub, one shared half-duplex medium) by HTTP/1.0
  (one connection per file), one object package, HTTP/1.1 keep-alive, parallel connections, pipelining
  or multiplexed streams; packets, bytes and response time as the paper's monitor counts them.
- ``testbed``: the hub as one FIFO link both directions share; the server's per-packet stack cost.
- ``workload``: the files (sizes from a distribution, text or binary, generated contents, zlib sizes).
- ``wire``: the package's on-wire size (the codec's layout) and a minimal local builder.
- ``paper``: Tables 1-3, the abstract checked against them, files per test and header size derived.
- ``readings``: packets per HTTP/1.0 file counted by hand under each reading of what the paper's stacks
  sent alone, beside Table 2's, with the files per test each implies.
- ``calibrate``: the server's two per-file costs least-squares fitted to Table 3.
- ``reproduce``: Tables 1-3 and Figures 4-5 re-run beside the paper's.
- ``loopback``: a real HTTP server on 127.0.0.1 and a real client, with the kernel's TCP_INFO counts.

Assumptions beside the paper's: ``simcore/objpack/ASSUMPTIONS.md``.
"""

from .model import ObjpackResult, response_plan, simulate_objpack
from .params import DISTRIBUTIONS, METHOD_LABELS, METHODS, PAPER_METHODS, ObjpackParams
from .workload import Page, make_page

__all__ = ["DISTRIBUTIONS", "METHODS", "METHOD_LABELS", "PAPER_METHODS", "ObjpackParams", "ObjpackResult",
           "Page", "make_page", "response_plan", "simulate_objpack"]
