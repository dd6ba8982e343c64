"""Capture files of a traced run (pcap / pcapng) that Wireshark and tshark read like real ones.

The public face: ``write_capture`` (also ``PacketResult.to_pcap``), ``capture_frames``, ``host_ip``,
``window_scale``, ``tcp_timestamps`` and the ports and formats, from ``export`` (which says what each header
holds). Behind it: ``frames`` (Ethernet / IPv4 / TCP / UDP headers of many frames at once, checksums),
``pcapfile`` (the pcap and pcapng file formats), ``sctp_packets`` (SCTP packets of a traced run, byte by byte,
and ``chunk_bounds``: the bytes of each DATA chunk sent) and ``sctp_chunks`` (SCTP chunks and CRC32c).

Import rules (``tests/packet/test_folders.py`` checks them): numpy, ``simcore._validate``, this folder,
``..results`` (the traced run), ``..sctp.wire`` (sizes); never ``..kernel``, the transports' kernels or
``..simulate``: a capture reads a finished result, it does not run.
"""

from .export import (
    CAPTURE_POINTS,
    CBR_DST_PORT,
    CBR_PORT0,
    CLIENT_PORT0,
    FORMATS,
    SERVER_PORT,
    capture_frames,
    host_ip,
    tcp_timestamps,
    window_scale,
    write_capture,
)

__all__ = ["CAPTURE_POINTS", "FORMATS", "SERVER_PORT", "CLIENT_PORT0", "CBR_PORT0", "CBR_DST_PORT",
           "host_ip", "window_scale", "tcp_timestamps", "capture_frames", "write_capture"]
