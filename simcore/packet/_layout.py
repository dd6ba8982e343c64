"""Column numbers of the state arrays shared by the packet kernels (compile-time constants for numba).

The kernel keeps all state in a few 2-D arrays indexed by row (a half-connection, a link, a packet) and by
one of the column constants below. A *half* ``h = 2 * conn + d`` is one direction of a connection:
``d = 0`` carries data client -> server, ``d = 1`` server -> client. The sender of half ``h`` and the
receiver of half ``h ^ 1`` live at the same host.

Compilation flags of the packet kernels (``_link``, ``_tcp``, ``_tcp_recv``, ``_kernel``), beyond the
project's ``@njit(cache=True)``:

- ``_nrt=False``: no reference counting. The kernels never allocate (every array is built by
  ``simulate.py``; the heap is preallocated and a full heap aborts the run, which is then redone with
  a larger one), and refcount traffic on the ~45 state arrays cost 5x in run time.
- ``forceinline=True`` on the functions of the per-packet path only: numba passes the state tuple ``X``
  as some 400 flattened scalar arguments, so every non-inlined call costs ~3 kB of stack copies;
  inlining them made the benchmark 2.5x faster. Rare paths are real calls (timeouts ``on_rto``,
  message writes and completions, drops, ``trace_tcp``, whose call sites test ``ST_TRACE`` first), so
  their code is compiled once rather than at every inlined call site.

numba's cache does not notice a change in a *callee's* file (and inlined callees live inside their
callers); ``simcore._cache_guard`` therefore drops simcore's numba caches whenever a file with numba code
(this one, a kernel, ``simcore/engine.py`` ...) changes.
"""

# ---- event kinds ------------------------------------------------------------------------------------
EV_ARRIVE = 0  # arg = packet slot: the packet reaches the far end of its current link
EV_RTO = 1  # arg = gen * n_halves + half
EV_DELACK = 2  # arg = gen * n_halves + half (receiver side of that half)
EV_WRITE = 3  # arg = message index: the application writes the message
EV_OPEN = 4  # arg = connection index: the client sends its SYN
EV_CBR = 5  # arg = cbr source index: emit one packet

# ---- TCP states of a sending half --------------------------------------------------------------------
S_CLOSED = 0
S_SYN = 1  # our SYN sent, not yet acknowledged
S_EST = 2  # our SYN acknowledged

# ---- variants -----------------------------------------------------------------------------------------
V_RENO = 0
V_NEWRENO = 1
V_SACK = 2

# ---- packet flags -------------------------------------------------------------------------------------
F_SYN = 1
F_ACK = 2
F_FIN = 4
F_CBR = 8
F_RETX = 16

# ---- segment flags (sender's scoreboard) -------------------------------------------------------------
G_SACKED = 1
G_SYN = 2
G_FIN = 4
G_RETX = 8  # ever retransmitted

# ---- half state, int columns (hi) --------------------------------------------------------------------
H_STATE = 0
H_SND_UNA = 1
H_SND_NXT = 2
H_SND_MAX = 3
H_WRITE_END = 4
H_FIN_SEQ = 5  # -1 while no FIN is queued
H_DUPACKS = 6
H_RECOVER = 7
H_IN_REC = 8
H_RTT_SEQ = 9  # ack that ends the timed segment, -1 if none
H_RTO_GEN = 10
H_RTO_EV = 11  # 1 while an RTO event is in the heap
H_SEG_HEAD = 12
H_SEG_N = 13
H_SEG_NXT = 14  # segments (from head) wholly below snd_nxt
H_N_RETX = 15
H_N_TIMEOUT = 16
H_N_FRETX = 17
H_N_SEGS = 18
H_REC_EPOCH = 19
H_SYN_RETX = 20
# receiver of this half (at the far host)
H_RCV_STARTED = 21
H_RCV_NXT = 22
H_OOO_N = 23
H_OOO_CLOCK = 24
H_DACK_BYTES = 25  # in-order bytes received and not yet acknowledged (delayed ACK)
H_DACK_GEN = 26
H_FIN_RCVD = 27
H_MSG_HEAD = 28  # oldest written, incomplete message on this half (-1 none)
H_MSG_TAIL = 29
H_N_DUPSEG = 30  # duplicate segments received
H_SEGS_RCVD = 31
H_RCV_FIN = 32  # seq of the FIN seen by the receiver, -1
H_ACK_OWED = 33  # 0 none, 1 now, 2 delayed
H_DACK_ARMED = 34
H_PARTIALS = 35
H_STREAM_END = 36  # end of the messages written so far (H_WRITE_END: of the bytes available)
H_LT_BYTES = 37  # bytes sent by Limited Transmit since the last new ACK (kept out of ssthresh's FlightSize)
H_RESCUE_EPOCH = 38  # recovery epoch in which the SACK rescue retransmission (NextSeg rule 4) was sent
H_SEG_ROW = 39  # row of this sender's scoreboard in X_SEG_* (-1: none; taken at open, given back when its FIN is acked)
H_OOO_ROW = 40  # row of this receiver's out-of-order blocks in X_OLO/OHI/OAGE (-1; taken at the SYN, back at the FIN)
HI_N = 41

# ---- half state, float columns (hf) ------------------------------------------------------------------
HF_CWND = 0
HF_SSTHRESH = 1
HF_SRTT = 2  # 0 until the first sample
HF_RTTVAR = 3
HF_RTO = 4
HF_RTT_T0 = 5
HF_RTO_DEADLINE = 6  # inf when stopped
HF_RTO_EV_T = 7  # time of the pending RTO event
HF_LAST_SEND = 8
HF_EST_T = 9  # time the half became established (-1)
HF_FIN_ACKED_T = 10
HF_FIN_RCVD_T = 11
HF_N = 12

# ---- connection parameters, int columns (cpi) --------------------------------------------------------
C_CLIENT = 0
C_SERVER = 1
C_VARIANT = 2
C_MSS = 3  # SMSS: data bytes of a full-sized segment (timestamps deducted)
C_RWND = 4
C_IW = 5
C_DELACK = 6
C_IDLE_RESTART = 7
C_CLOSER = 8  # 0 client, 1 server, -1 never
C_FIN_QUEUED = 9
C_OPENED = 10
C_TOTAL = 11  # 11, 12: messages per direction
C_WRITTEN = 13  # 13, 14: messages written per direction
C_DONE = 15  # 15, 16: messages completed per direction
C_MULTISTREAM = 17
C_HDR = 18  # header bytes per packet of this connection (timestamps included)
C_DUPTHRESH = 19  # duplicate ACKs that trigger fast retransmit
C_LIMITED_TX = 20  # 1: RFC 3042 Limited Transmit
C_DELACK_TICKS = 21  # 1: the delayed ACK leaves at the next multiple of the delayed-ACK time (BSD fast timer)
CI_N = 22

# ---- connection parameters, float columns (cpf) ------------------------------------------------------
C_MIN_RTO = 0
C_MAX_RTO = 1
C_INIT_RTO = 2
C_DELACK_S = 3
C_OPEN_T = 4
C_TIMEWAIT_T = 5  # result: closer entered TIME-WAIT
C_CLOSED_T = 6  # result: the peer's FIN was acknowledged (peer CLOSED)
C_INIT_SSTHRESH = 7
C_TICK_S = 8  # timer granularity (0: exact): RTT samples, RTO values and expiries in whole ticks
CF_N = 9

# ---- packet, int columns (pi) ------------------------------------------------------------------------
P_CONN = 0  # connection, or cbr source for F_CBR
P_DIR = 1
P_SEQ = 2
P_SEQLEN = 3  # payload + SYN + FIN
P_PAYLOAD = 4
P_FLAGS = 5
P_ACK = 6
P_SACK = 7  # 7..12: three (lo, hi) blocks, lo = -1 when unused
P_PATH = 13
P_HOP = 14
P_IPBYTES = 15
P_UID = 16
PI_N = 17

# ---- packet, float columns (pf) ----------------------------------------------------------------------
PF_T_SENT = 0
PF_N = 1

# ---- link, int columns (li) --------------------------------------------------------------------------
L_QLIM = 0
L_QLIM_BYTES = 1  # 0 = no byte limit
L_HDR = 2
L_RING_HEAD = 3
L_RING_N = 4
L_FLU_PTR = 5
L_FLU_P0 = 6
L_FLU_P1 = 7
L_N_TX = 8
L_N_DROP_Q = 9
L_N_DROP_L = 10
L_HAS_FLUID = 11  # 0 none, 1 continuous fluid, 2 fluid entering in packet-size chunks
L_N_OFFERED = 12  # packets offered so far (numbers the deterministic drops)
L_DROP_PTR = 13
L_DROP_P1 = 14
L_LOSS_ARRIVAL = 15  # 1: random/forced loss strikes on arrival, before the queue (0: after transmission)
L_RING_BASE = 16  # this link's ring: entries [base, base + cap) of the flat ring arrays
L_RING_CAP = 17
LI_N = 18

# ---- link, float columns (lf) ------------------------------------------------------------------------
L_RATE = 0  # bytes per second
L_PROP = 1
L_LOSS = 2
L_FREE_AT = 3
L_W = 4  # fluid links: unfinished work, bytes (packets + fluid)
L_T_LAST = 5
L_BYTES_TX = 6
L_FLU_PKT = 7
L_BMAX = 8
L_FLU_IN = 9
L_FLU_DROP = 10
L_QBYTES = 11  # bytes of queued packets (including the one in transmission)
L_FLU_NEXT = 12  # chunked fluid: time of the next chunk
L_PKT_RATE = 13  # continuous fluid: packet arrival rate estimate, bytes/s
L_PKT_T = 14
LF_N = 15

# ---- status / counters (st) --------------------------------------------------------------------------
ST_FLAGS = 0  # bit 1: pool full, 2: heap full, 4: packet trace full, 8: tcp trace full, 16: queue trace
ST_UID = 1
ST_FREE_N = 2
ST_EVENTS = 3
ST_CREATED = 4
ST_DELIVERED = 5
ST_DROP_Q = 6
ST_DROP_L = 7
ST_N_PKTTR = 8
ST_N_TCPTR = 9
ST_N_QTR = 10
ST_N_CBRREC = 11
ST_TRACE = 12  # 1 when tracing
ST_SEG_FREE = 13  # free scoreboard rows (X_SEG_FREE[:n])
ST_OOO_FREE = 14  # free out-of-order rows (X_OOO_FREE[:n])
ST_N = 15

OVF_POOL = 1
OVF_HEAP = 2
OVF_PKTTR = 4
OVF_TCPTR = 8
OVF_QTR = 16
OVF_CBR = 32
OVF_RING = 64  # a link's ring (sized below its queue limit) was full: redo with full-size rings
OVF_ROWS = 128  # no scoreboard / out-of-order row free mid-event: redo with one row per half
PAUSE_ROWS = 256  # stopped between events for more rows: the caller grows the row arrays and resumes

# packet trace event kinds
TR_SEND = 0
TR_RECV = 1
TR_DROP_QUEUE = 2
TR_DROP_LOSS = 3
TR_FORWARD = 4  # a router hands the packet to the next link of its path (``link`` = that link)

# packet trace columns: t, kind, uid, conn, dir, seq, seqlen, ack, flags, link, then the SACK blocks
TRP_SACK = 10  # 10..15: three (lo, hi) SACK blocks as in P_SACK (lo = -1 unused)
TRP_N = 16

BIG_SEQ = 1 << 60

# ---- messages (mi / mf) ------------------------------------------------------------------------------
M_CONN = 0
M_DIR = 1
M_SIZE = 2  # -1 = bulk (never ends)
M_END = 3  # stream sequence number just after the message
M_NEXT = 4  # next written message on the same half
M_BEGIN = 5  # stream sequence number of its first byte
M_STREAM = 6
M_AVAIL = 7  # bytes of the message available to send (< size while a relay is filling it)
M_RELAY_TO = 8  # message that relays this one's bytes as they arrive (-1 none)
M_RELAY_OF = 9
M_POOL = 10  # connection pool the message goes on (-1: its own M_CONN; else M_CONN is set when written)
MI_N = 11
MF_START = 0
MF_DELAY = 1
MF_WRITE = 2
MF_DONE = 3
MF_N = 4

# ---- constant-bit-rate sources (cbi / cbf) ----------------------------------------------------------
CB_PATH = 0
CB_SIZE = 1
CB_P0 = 2
CB_P1 = 3
CB_PTR = 4
CB_SENT = 5
CB_RCVD = 6
CBI_N = 7
CB_START = 0
CB_STOP = 1
CBF_N = 2

# ---- positions in the state tuple X ------------------------------------------------------------------
X_HI = 0
X_HF = 1
X_SEG_S = 2
X_SEG_L = 3
X_SEG_F = 4
X_SEG_E = 5
X_OLO = 6
X_OHI = 7
X_OAGE = 8
X_CPI = 9
X_CPF = 10
X_PI = 11
X_PF = 12
X_FREE = 13
X_ST = 14
X_LI = 15
X_LF = 16
X_RDEP = 17
X_RBYTES = 18
X_RNG = 19
X_FLU_T = 20
X_FLU_R = 21
X_PATH_PTR = 22
X_PATH_LINKS = 23
X_MI = 24
X_MF = 25
X_DEP_PTR = 26
X_DEP_MSG = 27
X_CDEP_PTR = 28
X_CDEP_CONN = 29
X_CBI = 30
X_CBF = 31
X_CB_T = 32
X_CB_R = 33
X_CB_REC = 34
X_TRP = 35
X_TRT = 36
X_TRQ = 37
X_HT = 38
X_HS = 39
X_HK = 40
X_HA = 41
X_HM = 42
X_SCAL = 43  # float64: [tcp/ip header bytes, end time, 1 if any message relays another]
X_DROPS = 44  # int64: concatenated sorted drop_sequence of every link
X_POOL = 45  # int64 (n_pools, POOL_N): connection pools
X_POOL_CONN = 46  # int64: the connections of every pool, concatenated
X_SEG_FREE = 47  # int64: free rows of X_SEG_* (first st[ST_SEG_FREE] entries)
X_OOO_FREE = 48  # int64: free rows of X_OLO/OHI/OAGE
X_N = 49

# ---- connection pools (X_POOL) -----------------------------------------------------------------------
PO_P0 = 0  # first and one-past-last index into X_POOL_CONN
PO_P1 = 1
PO_RULE = 2  # 0 fewest bytes outstanding, 1 round robin
PO_NEXT = 3  # round robin: position of the next connection to use
POOL_N = 4
