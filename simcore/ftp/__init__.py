"""simcore.ftp: FTP ``mget`` sessions on simcore.packet (chapter 3: Ladha, Amer, Iyengar, Caro 2002).

::

    from simcore.ftp import FtpParams, run_transfer
    t = run_transfer(FtpParams(n_files=10, file_size_bytes=10240, design="ftp", loss=0.01), seed=1)
    t.time_s        # first packet after mget -> last 226 at the client, seconds

Modules, one concept each: ``commands`` (RFC 959 commands and replies, byte for byte), ``params``
(``FtpParams``, the designs and transports), ``session`` (each design's message pattern as a packet
scenario), ``_waits`` (messages that wait for two things), ``transfer`` (``Transfer`` and
``run_transfer``), ``sampling`` (the paper's sample-size rule). ``LOSS_READING.md`` argues what the
paper's loss ratios mean. Paper designs 2-4 run on simcore.packet's SCTP (``transport="sctp"``,
``SCTP_ASSUMED``: the RFC 2960 preset of the 2002 KAME stack).
"""

from .params import DESIGNS, MODES, PAPER_DESIGNS, SCTP_ASSUMED, TCP_ASSUMED, TRANSPORTS, FtpParams, paper_design
from .sampling import Sample, sequential_sample
from .transfer import Transfer, run_traced, run_transfer, run_transfers, sample_point, transfer

__all__ = ["DESIGNS", "MODES", "PAPER_DESIGNS", "SCTP_ASSUMED", "TCP_ASSUMED", "TRANSPORTS", "FtpParams", "Sample",
           "Transfer", "paper_design", "run_traced", "run_transfer", "run_transfers", "sample_point",
           "sequential_sample", "transfer"]
