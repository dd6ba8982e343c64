"""The state of the packet kernels: named record arrays, one per entity, in one ``State`` named tuple.

Every kernel function takes ``S`` (a ``State``, passed by reference: ``kernel.loop.run(state)`` makes
``S = _numba.stateref.by_ref(state)`` and hands that pointer on) and reads a field by name: ``S.half[h].snd_una``,
``S.conn[c].mss``, ``S.link[k].rate_Bps``, ``S.pkt[p].seq``, ``S.st[0].flags``. Each record array has a
numpy structured dtype defined below (ints are int64, floats float64), so a misspelt field or a field of
another entity fails at compile time. Ring-like tables stay 2-D record arrays (``S.seg[row, i].start``,
``S.ooo[row, i].lo``); traces are plain 2-D float arrays; the event heap is ``simcore.engine``'s five arrays.
The events known before the run (opens and writes at a given time, CBR starts) are not in the heap but in
``S.known_t``, ``known_k``, ``known_a``, sorted by (time, number), read at the cursor ``st.known_next``;
``kernel.loop.run`` merges them with the heap in (time, number) order. At the paper's scale they are most of
the pending events, and in the heap every push of a near event sifted up past them all. Events pushed in
time order (delayed-ACK timers, BSD retransmission timers of the same tick count, arrivals over the links
of largest bandwidth-delay product) wait in FIFO lanes beside the heap (``S.lane``, ``kernel/lane.py``), numbered
as heap events, and ``run`` takes the earliest of the three.

A *half* ``h = 2 * c + d`` is one direction of the connection in slot ``c`` (``kernel/slot.py``: the rows of ``S.half``
and ``S.conn`` are per connection slot; ``S.conn[c].cid`` is the connection's number in the scenario): ``d = 0``
carries data client -> server, ``d = 1`` server -> client. The sender of half ``h`` and the receiver of half
``h ^ 1`` live at the same host. ``S.conn[c].proto`` names the transport of connection ``c`` (``PROTO_TCP``);
``kernel.transport`` dispatches on it (see CONTRIBUTING.md, "Adding a transport").

Compilation flags of the packet kernels, beyond the project's ``@njit(cache=True)``:

- ``_nrt=False``: no reference counting. The kernels never allocate (every array is built by
  ``simulate.py``; the heap is preallocated and a full heap aborts the run, which is then redone with
  a larger one), and refcount traffic on the state arrays cost 5x in run time.
- ``error_model="numpy"``: a division by zero gives inf / nan instead of raising ZeroDivisionError, so no
  division carries a test-and-raise branch (less IR to type, lower and optimise: ~2 s of the cold compile).
  No kernel divides by a value that can be zero (divisors are link rates, cwnd, sizes, validated > 0, or
  guarded), so results are unchanged (``benchmarks/_golden_packet.py``).
- ``no_cpython_wrapper=True, no_cfunc_wrapper=True`` on every internal kernel (all but ``kernel.loop.run``,
  the entry point): nothing calls them from Python, and each wrapper unboxes 34 record arrays.
- ``S`` by reference (``_numba.stateref.StateRef``): numba passes a named tuple of arrays as its flattened fields
  (some 285 scalars for ``State``), so every call, prologue and call site carried them all (in every
  library, see below); a ``StateRef`` is one pointer, and ``S.half`` ... are invariant loads through it.
- ``@_numba.outline.one_signature`` on kernels that call sites pass constants (``push(S, t, L.EV_RTO, a)``,
  ``trace_tcp(S, h, t, 2)``): numba would compile one copy per literal value.
- How a function is compiled depends on how often it runs and how big it is, because numba compiles every
  ``@njit`` function as an LLVM library of its own that links, re-optimizes and re-emits all it calls (a
  function that ``forceinline``s a large callee pays for that callee's code again, and a rare path inlined
  into ``on_ack`` is paid in ``on_ack``'s library and again in ``run``'s), and LLVM's inliner
  inlines mid-size callees wherever it may (before ``StateRef`` each of S's scalars counted as work saved):

  - ``inline="always"`` (numba inlines the function's IR at the call site; no library of its own): thin
    glue, i.e. the dispatchers of ``kernel.transport`` (``close_half`` only inside
    ``kernel.app._relays_or_close``), TCP's handlers of rare events (``tcp_open``, ``tcp_delack``, ``tcp_close``,
    ``_send_pure_ack``), the application's ``deliver`` and ``maybe_close``, ``inject``, ``_send_new``, ``_cbr_emit``;
    and functions with one caller that are off the per-packet path (``write``, ``on_rto``, ``_sack_send``, SCTP's
    ``_handshake``), TCP's arrival handler ``tcp_arrive`` (one caller, the event loop) and SCTP's SACK handler
    ``on_sack`` (one caller, ``_arrive``): a library of their own would be compiled and then compiled again inside their
    caller's (``tcp_arrive``'s was 10% of the compile). Glue aside, not for a function with several callers:
    numba re-reads, re-types and re-lowers its IR at each (``send_segment``, inlined at its eight callers,
    cost 7 s of the cold compile; ``sctp_packet_fast`` at two, 2.5 s) Inlined IR is copied again at every level
    of inlining above it (``run`` copies ``on_arrival``, which copied ``tcp_arrive``, which copied ``deliver`` ...,
    at a cost that grows with the square of the copied function's size): no wrapper that only calls another
    (``tcp.events.tcp_rto`` *is* ``tcp.sender.on_rto``), and nothing added to a deeply inlined function lightly
    (inlining ``kernel.app._feed_relays`` and ``kernel.transport.close_half`` there, to save their libraries, made
    the cold compile ~4 s slower before ``_numba.fixes`` below, and gained nothing after).
  - ``forceinline=True`` (LLVM inlines the compiled function): the per-packet hot path only, i.e.
    ``link_enqueue`` and its helpers, the packet pool, heap and lane push and pop, a packet's arrival at its host
    (``on_segment``, ``on_ack``), window, timer and RTT helpers.
  - plain calls: everything else, including per-packet functions that are large and called from many places
    (``send_packet``, ``try_send``, ``sctp_send``: with ``S`` a pointer a call costs a few ns, and
    ``sctp_send`` forceinlined put a copy of the link into ``_arrive``), SACK scoreboard passes, opens,
    timeouts, message writes and completions, relays, drops and traces.
  - ``_numba.outline.outline(f, (S, ...))``: a plain call that LLVM may *not* inline (a ``noinline`` call site),
    for calls off the per-packet path whose callee would otherwise be copied into every caller: traces,
    random-loss drops and fluid accounting inside the link, the link behind SCTP's sends off the per-packet
    path (``inject_call``; ``sctp_packet_fast`` inlines it for new DATA and for the SACK a DATA packet
    draws), SCTP's arrivals other than DATA-only packets (``_arrive``), TCP's SYNs, SYN-ACKs and
    retransmissions (``send_segment``, ``open_half``), the FIN's bookkeeping, ``try_send`` / ``sctp_send``
    from the application, relays, SCTP's set-up, shutdown and timer packets, close and timeout paths
    (``kernel.app.maybe_close``, inlined in five places, calls ``kernel.transport.close_half`` so). Rare out-of-line
    paths that call the same large callees share one function where they can (``kernel.app._relays_or_close``: the close
    and the relays' feed, both calling ``try_send`` / ``sctp_send``; ``sctp.events._rare``: SCTP's shutdown
    and T3-rtx expiry): each library links and compiles its callees again, so two libraries compiled the send
    paths twice (~2-3 s of the cold compile). TCP's new data and
    ACKs (``_send_new``, ``_send_pure_ack``: ``inject``) and the event loop's forwarding keep the link
    inlined. Without these the event loop's module held 63 copies of ``send_packet`` and about 100 of the
    link, and the cold compile took twice as long.

  ``benchmarks/bench_compile.py`` prints the cold compile time and the reference dumbbell's events/s
  (TCP and SCTP), and with ``--breakdown`` where the compile goes, per stage and per function, with each
  library's size and each kernel's signatures: check them when moving a function from one group to
  another (while ``S`` went by value, IR-inlining ``tcp_arrive`` instead of ``forceinline`` cut events/s
  tenfold; with ``StateRef`` it costs nothing at run time and saves a tenth of the compile).

Memory at scale: the half and connection rows are per connection *slot* (``kernel/slot.py``), taken and given back, so
they grow with the connections alive, not with the scenario; routes are one per distinct (src, dst) (``S.conn[c].rt``);
and in scenarios of 20k connections and more the event loop prefetches the rows its next events will read
(``kernel.loop._hint_next``, ``_numba/prefetch.py``: hints only, no value changes).

numba's own compile-time waste in IR inlining and typing is fixed while the kernels compile
(``_numba.fixes.compile_fixes``, entered by ``simulate.run_to_end`` until ``kernel.loop.run`` is compiled): same
compiled code, ~4 s less. Within it, ``_numba.lazylink`` also stops numba from compiling every library with its
callees' copies: each kernel is optimised and compiled to machine code once, inside the event loop's library
(the "each library links and compiles its callees again" above then costs IR linking only; the cold compile
about halves). The groups above still decide what LLVM inlines, hence the events/s.

numba's cache does not notice a change in a *callee's* file (and inlined callees live inside their
callers); ``simcore._cache_guard`` therefore drops simcore's numba caches whenever a file with numba code
(this one, a kernel, ``simcore/engine.py`` ...) changes.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

# ---- event kinds ------------------------------------------------------------------------------------
EV_ARRIVE = 0  # arg = packet slot: the packet reaches the far end of its current link
EV_RTO = 1  # arg = gen * n_halves + half
EV_DELACK = 2  # arg = gen * n_halves + half (receiver side of that half)
EV_WRITE = 3  # arg = message index: the application writes the message
EV_OPEN = 4  # arg = connection index: the client sends its SYN
EV_CBR = 5  # arg = cbr source index: emit one packet
EV_NONE = 6  # a cancelled timer's event left in its lane (``kernel.delack``): counted, nothing to do
EV_DEQUEUE = 7  # arg = link: the transmitter of a link whose queue discipline decides at dequeue (CoDel, FQ-CoDel)
# is free (``kernel.qdisc.queue``); drop-tail and RED links never have one
EV_PACE = 8  # arg = half: a paced sender's next departure time (HALF.pace_next_t) has come (``tcp.sender``)

# ---- TCP states of a sending half --------------------------------------------------------------------
S_CLOSED = 0
S_SYN = 1  # our SYN sent, not yet acknowledged
S_EST = 2  # our SYN acknowledged

# ---- TCP loss recoveries (S.conn[c].recovery; TcpParams.recovery) --------------------------------------------
REC_RENO = 0
REC_NEWRENO = 1
REC_SACK = 2
# (congestion controls, S.conn[c].cc, are numbered by tcp.cc.registry: this module does not import the transports)

# ---- packet flags -------------------------------------------------------------------------------------
F_SYN = 1
F_ACK = 2
F_FIN = 4
F_CBR = 8
F_RETX = 16
F_COOKIE = 32  # SCTP: the packet holds a COOKIE-ECHO (client) or COOKIE-ACK (server)
# ECN (RFC 3168): the IP header's ECN field (ECT(0) set by an ECN-capable sender on new data; CE set by a link's
# AQM instead of a drop) and TCP's ECE / CWR flags (``tcp.ecn``)
F_ECT = 64
F_CE = 128
F_ECE = 256
F_CWR = 512
F_DOOMED = 1024  # kernel only, never traced: lost after its transmission on a link with a queue discipline

# ---- segment flags (sender's scoreboard) -------------------------------------------------------------
G_SACKED = 1
G_SYN = 2
G_FIN = 4
G_RETX = 8  # ever retransmitted

# ---- overflow flags (S.st[0].flags) ------------------------------------------------------------------
OVF_POOL = 1
OVF_HEAP = 2
OVF_PKTTR = 4
OVF_TCPTR = 8
OVF_QTR = 16
OVF_CBR = 32
OVF_RING = 64  # a link's ring (sized below its queue limit) was full: redo with full-size rings
OVF_ROWS = 128  # no scoreboard / out-of-order row free mid-event: redo with one row per half
PAUSE_ROWS = 256  # stopped between events for more rows: the caller grows the row arrays and resumes
OVF_SOJTR = 512  # the sojourn trace (``S.tr_soj``) was full

# packet trace event kinds
TR_SEND = 0
TR_RECV = 1
TR_DROP_QUEUE = 2
TR_DROP_LOSS = 3
TR_FORWARD = 4  # a router hands the packet to the next link of its path (``link`` = that link)

# A packet's (lo, hi) blocks, S.pkt[p].sack: TCP reports at most TCP_SACK_BLOCKS SACK blocks (RFC 2018 with
# timestamps), SCTP at most SACK_BLOCKS gap ack blocks (RFC 4960 sec. 3.3.4 allows as many as fit in the MTU;
# 16 blocks are 64 bytes, and a receiver may report fewer than it holds: beyond 16 gaps, the lowest 16 are
# reported, those nearest the cumulative TSN ack that drive fast retransmit).
TCP_SACK_BLOCKS = 3
SACK_BLOCKS = 16

# packet trace columns (S.tr_pkt): t, kind, uid, conn, dir, seq, seqlen, ack, flags, link, SACK blocks
TRP_SACK = 10  # 10..10 + 2 SACK_BLOCKS - 1: the packet's (lo, hi) blocks as in PKT.sack (lo = -1 unused)
TRP_NDUP = TRP_SACK + 2 * SACK_BLOCKS  # SCTP: duplicate TSNs the SACK reports (0 or 1)
TRP_DUP = TRP_NDUP + 1  # SCTP: that duplicate TSN
TRP_N = TRP_DUP + 1

BIG_SEQ = 1 << 60

# ---- transports (S.conn[c].proto) -------------------------------------------------------------------
PROTO_TCP = 0
PROTO_SCTP = 1

# ---- SCTP chunk bits of a packet (S.pkt[p].chunks) ------------------------------------------------------
K_INIT = 1
K_INIT_ACK = 2
K_COOKIE_ECHO = 4
K_COOKIE_ACK = 8
K_DATA = 16
K_SACK = 32
K_SHUTDOWN = 64
K_SHUTDOWN_ACK = 128
K_SHUTDOWN_COMPLETE = 256

# ---- SCTP phases of a sending half (S.half[h].sphase) ----------------------------------------------------
SP_INIT = 0  # S_SYN: INIT sent
SP_COOKIE = 1  # S_SYN: COOKIE-ECHO sent
SP_UP = 0  # S_EST: established
# (S_EST with SP_COOKIE: COOKIE-ECHO sent with DATA bundled; nothing more until COOKIE-ACK)
SP_SHUT_PENDING = 2  # the application closed: SHUTDOWN once all our data is acknowledged
SP_SHUT_SENT = 3  # SHUTDOWN sent (T2-shutdown)
SP_SHUT_RCVD = 4  # the peer's SHUTDOWN arrived: SHUTDOWN-ACK once all our data is acknowledged
SP_SHUT_ACK_SENT = 5  # SHUTDOWN-ACK sent (T2-shutdown)
SP_CLOSED = 6  # SHUTDOWN-COMPLETE sent or received: the association is gone (no TIME-WAIT)
SP_ABORTED = 7  # S_SYN: T1 expired after Max.Init.Retransmits retransmissions: set-up given up (sec. 5.1 A)


def _dtype(ints: str, floats: str = "", arrays: tuple = ()) -> np.dtype:
    """A record dtype: int64 fields, then float64 fields, then int64 sub-arrays ``(name, shape)``."""
    return np.dtype([(n, np.int64) for n in ints.split()] + [(n, np.float64) for n in floats.split()]
                    + [(n, np.int64, shape) for n, shape in arrays])


def _ordered_dtype(fields: str) -> np.dtype:
    """A record dtype with its fields in the order given: int64, float64 when the name ends in ``:f``, an int64
    sub-array of n when it ends in ``:n``.
    Code reads fields by name, so the order is only the memory layout: fields read together sit together."""
    return np.dtype([(n[:-2], np.float64) if n.endswith(":f") else (n[:-2], np.int64, (int(n[-1]),)) if n[-2:-1] == ":"
                     else (n, np.int64) for n in fields.split()])


ordered_dtype = _ordered_dtype  # for records defined elsewhere (``kernel.qdisc.dispatch``)


def records(shape, dtype: np.dtype) -> np.ndarray:
    """Zeroed records of ``dtype`` (``np.zeros(shape, dtype)``), made as a view of zeroed bytes: numpy walks a
    record dtype's fields on every array it makes (~35 ns a field, 2.7 us for a ``HALF`` array), which a build of a
    small scenario's ~20 record arrays paid on every call."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    n = 1
    for k in shape:
        n *= k
    return np.ndarray(shape, dtype, np.zeros(max(n * dtype.itemsize, 1), np.uint8))


# One row per half-connection (fields listed below by role; HALF orders them hot first). Sender of this half:
#   state (S_*), snd_una/snd_nxt/snd_max, write_end (end of the bytes available to send), fin_seq (-1 while
#   no FIN is queued), stream_end (end of the messages written so far), dupacks, recover, in_rec,
#   rtt_seq (ack that ends the timed segment, -1 none), rto_gen, rto_ev (1 while an RTO event is in the
#   heap), seg_row (its scoreboard row in S.seg, -1 none: taken at open, given back when its FIN is acked),
#   seg_head/seg_n/seg_nxt (segments from head wholly below snd_nxt), counters n_retx/n_timeout/n_fretx/
#   n_segs, rec_epoch, syn_retx, partials, lt_bytes (sent by Limited Transmit since the last new ACK),
#   rescue_epoch (recovery epoch of the SACK rescue retransmission), msg_head/msg_tail (oldest written,
#   incomplete message of this half, -1 none), avail_m (its first message not wholly available to send,
#   -1 none: every message before it is, so finding write_end does not rescan a long queue).
# Receiver of this half (at the far host):
#   rcv_started, rcv_nxt, ooo_row (row in S.ooo, -1; taken at the SYN, back at the FIN), ooo_n, ooo_clock,
#   dack_bytes (in-order bytes not yet acknowledged), dack_gen, dack_armed (0 none; armed: 1 + the position of
#   its event in the delayed-ACK lane, or -1 when that event went to the heap: ``kernel.delack``), ack_owed (0 none,
#   1 now, 2 delayed), fin_rcvd, rcv_fin (seq of the FIN seen, -1), n_dupseg, segs_rcvd.
# Floats: cwnd, ssthresh, srtt (< 0 before the first sample), rttvar, rto, rtt_t0, rto_deadline (inf
#   when stopped), rto_ev_t (time of the pending RTO event), last_send, est_t, fin_acked_t, fin_rcvd_t.
HALF = _ordered_dtype(
    # hot, per packet, in the order a segment's arrival reads them (the receiver of half r, then the sender of
    # half r ^ 1, which takes the ACK it carries and sends): the first 6 of the row's 8 cache lines
    "rcv_started rcv_nxt ack_owed dack_bytes dack_armed dack_gen ooo_n ooo_row rcv_fin fin_rcvd segs_rcvd "
    "state snd_una snd_nxt snd_max dupacks in_rec recover rtt_seq rtt_t0:f cwnd:f ssthresh:f seg_row seg_head "
    "seg_n seg_nxt write_end fin_seq stream_end lt_bytes partials rec_epoch srtt:f rttvar:f rto:f rto_deadline:f "
    "rto_ev rto_ev_t:f rto_gen last_send:f pace_rate_Bps:f n_segs msg_head msg_tail avail_m "
    # cold: counters, rare paths, SCTP
    "n_dupseg n_retx n_timeout n_fretx syn_retx rescue_epoch ooo_clock est_t:f fin_acked_t:f fin_rcvd_t:f "
    "tsn_head sphase sack_pkts snd_msg n_marked dup_tsn flight:f pba:f peer_rwnd:f abort_t:f rxt_shift giveup_t:f "

    # ECN (RFC 3168, ``tcp.ecn``): the receiver echoes ECE while ece_on; the sender reduces once per window (not
    # again before snd_una passes ecn_recover), sets CWR on its next new segment while cwr_owed; n_ecn reductions
    "ece_on ecn_recover cwr_owed n_ecn "
    # pacing (``tcp.sender``): a half whose congestion control sets pace_rate_Bps > 0 (bytes of payload per second;
    # 0: not paced; in the hot part, as every send reads it) sends a segment no earlier than pace_next_t (s), the
    # time the previous one's payload took at that rate after it left; pace_ev (1 while an EV_PACE event is pending)
    "pace_next_t:f pace_ev")
# SCTP only (PROTO_SCTP): tsn_head (TSN of the chunk at seg_head), sphase (SP_*: handshake and shutdown),
# sack_pkts (packets with DATA not yet acknowledged, for the delayed SACK), snd_msg (message holding snd_max, -1
# unknown), n_marked (chunks marked for retransmission), dup_tsn (receiver: a duplicate TSN received since its last
# SACK, -1 none); flight (user data outstanding, bytes), pba
# (partial_bytes_acked), peer_rwnd (the peer's window as the sender tracks it), abort_t (when the set-up was
# given up, nan never); syn_retx counts the INIT / COOKIE-ECHO retransmissions.
# Give-up rules (``kernel.giveup``, both transports): rxt_shift counts the retransmission timeouts since the
# last acknowledgement of new data (BSD's t_rxtshift, SCTP's error counter); giveup_t (TCP opener: when its
# connection-establishment timer expires, inf none); abort_t is also set when a connection is given up.

# One row per connection *slot* (``kernel/slot.py``: a connection takes a slot when the kernel first needs it and
# gives it back once closed and unreferenced; half ``h`` of the kernel is half ``h & 1`` of the connection in slot
# ``h >> 1``): its parameters and application bookkeeping. cid (the connection's number in the scenario), keep (1: never
# given back: a pooled connection), n_pkts (its packets in flight), rt[d] (route of half d), proto (PROTO_*), client,
# server, recovery (REC_*: TcpParams.recovery), cc (the congestion control, tcp.cc.registry.CC_*), mss (SMSS: data
# bytes of a full-sized segment, timestamps deducted), rwnd, iw, delack, idle_restart, closer (0 client, 1 server, -1
# never), fin_queued, opened, multistream (1: per-stream delivery, 2:
# SCTP unordered, each message on arrival), hdr (header bytes per packet, options included), dupthresh, limited_tx
# (RFC 3042), delack_ticks (1: the delayed ACK leaves at the next multiple of delack_s, BSD's fast timer), rto_ss (a
# timeout's ssthresh, ``TcpParams.timeout_ssthresh``: 0 once per loss episode, 1 RFC 5681 eq. 4 at every timeout),
# bare_ack (1: the client answers the SYN-ACK with a bare ACK, ``not TcpParams.request_on_handshake_ack``), ecn (1:
# ECN-capable, RFC 3168, ``TcpParams.ecn``); per
# direction d: total[d] messages, written[d], done[d]. Floats: min_rto, max_rto, init_rto, delack_s, open_t,
# timewait_t (closer entered TIME-WAIT), closed_t, init_ssthresh, tick_s (timer granularity, 0 exact). SCTP (from
# SctpParams; mss = user data of a full DATA chunk, iw = initial cwnd in bytes, delack / delack_s = delayed SACK):
# mtu, max_burst, burst_pkts (1: Max.Burst counts packets), miss_thr, htna, fast_rec, ss_min / idle_min (floors in
# MTUs), sack_every, cookie (bytes), cookie_data (1: DATA may ride on COOKIE-ECHO), max_init (Max.Init.Retransmits).
# Give-up rules (``kernel.giveup``): dead (1 once a transport gave the connection up: the kernel hands it nothing
# more), max_rxt (retransmission timeouts in a row after which it is given up: TCP's TCP_MAXRXTSHIFT, SCTP's
# Association.Max.Retrans; -1 never), TCP: syn_bsd (1: SYN retransmissions follow BSD's tcp_syn_backoff table, not
# doubling), synack_max (SYN-ACK retransmissions by the passive side's timer, BSD's SYNCACHE_MAXREXMTS; -1 no limit),
# keepinit (connection-establishment timer, s; inf none).
CONN = _ordered_dtype(
    # hot, per packet: the first 3 cache lines
    "proto dead n_pkts rt:2 mss recovery cc hdr rwnd delack delack_ticks delack_s:f dupthresh limited_tx idle_restart "
    "tick_s:f ecn min_rto:f max_rto:f multistream closer fin_queued opened total:2 written:2 done:2 "
    # cold: set-up, close and SCTP
    "cid keep client server iw init_rto:f init_ssthresh:f open_t:f timewait_t:f closed_t:f rto_ss bare_ack "
    "mtu max_burst burst_pkts miss_thr htna fast_rec ss_min idle_min sack_every cookie cookie_data max_init "
    "max_rxt syn_bsd synack_max keepinit:f cc_seed")
# cc_seed: a congestion control's own random stream (BBR's random start of its gain cycle), drawn per connection from
# the link seeds (``simulate``), so it takes no draw from the scenario's seed and changes nothing else.

# Per connection number (``cid``), what the kernel reads before the connection has a slot or after it gave it
# back: slot (-1 none yet, -2 given back), par (its row of parameters in S.conn_par, CONN records copied into
# the slot), client, server, closer, pooled, total[d] messages per direction, rt[d] (route of half d: links
# S.path_links[S.path_ptr[rt]:S.path_ptr[rt + 1]]), open_t; and the connection's results
# once it gave its slot back: timewait_t (nan while none); HALF_OUT, one row per half 2 * cid + d: the fields
# ``simulate._result`` reads.
CONN_ID = _ordered_dtype("slot par client server closer pooled total:2 rt:2 open_t:f timewait_t:f")
HALF_OUT = _ordered_dtype("rcv_nxt fin_rcvd rcv_started n_segs n_retx n_timeout n_fretx cwnd:f ssthresh:f srtt:f "
                          "rto:f est_t:f fin_acked_t:f abort_t:f n_ecn")

# Sender's scoreboard, one row per open sending half, a ring of its sent segments: start seq (int64), len (seq
# space), flags (G_*), epoch (recovery epoch in which it was last retransmitted); int32 but start: 32 bytes.
SEG = np.dtype([("start", np.int64)] + [(n, np.int32) for n in "len flags epoch miss frtx mark".split()])
# SCTP uses the same ring for its DATA chunks (TSN = half's tsn_head + offset from seg_head): flags
# G_SACKED (acknowledged by a gap ack block) and G_RETX, miss (miss indications), frtx (0 never, 1 marked
# for fast retransmission, 2 fast-retransmitted), mark (1: to be retransmitted, out of the flight).
# Receiver's out-of-order blocks [lo, hi), one row per open receiving half; age orders them for SACK.
OOO = _dtype("lo hi age")
# Delivery-rate samples (draft-cheng-iccrg-delivery-rate-estimation), one record per entry of S.seg, in S.rate (the
# same [row, i] as the segment; a (1, 1) table when no connection's congestion control needs it, ``tcp.cc.rate``):
# what the sender knew when it last sent the segment: delivered (bytes delivered so far, C.delivered; -1 once the
# segment's delivery was counted), app_limited (1: sent in an application-limited phase), first_sent_t
# (C.first_sent_time, s), delivered_t (C.delivered_time, s), sent_t (when it was sent, s).
RATE = _ordered_dtype("delivered app_limited first_sent_t:f delivered_t:f sent_t:f")

# One row per packet slot: conn (connection, or CBR source for F_CBR), dir, seq, seqlen (payload + SYN +
# FIN), payload, flags (F_*), ack, path, hop, ipbytes, uid; sack: SACK_BLOCKS (lo, hi) blocks, lo = -1
# unused (TCP uses the first TCP_SACK_BLOCKS); t_sent.
PKT = _dtype("conn dir seq seqlen payload flags ack path hop ipbytes uid tsn chunks wnd ndup dup qnext", "t_sent t_enq",
             (("sack", (2 * SACK_BLOCKS,)),))
# SCTP packets: chunks (K_* bits), tsn (of the DATA chunk), ack (cumulative TSN ack of a SACK), sack (up to
# SACK_BLOCKS gap blocks as TSN ranges [lo, hi)), wnd (a_rwnd), ndup / dup (duplicate TSNs reported: 0 or 1, and that
# TSN); seq/seqlen give the bytes of the DATA chunks (consecutive TSNs from tsn).
# On a link whose queue discipline decides at dequeue (``kernel.qdisc.queue``): qnext (the next packet of its queue,
# -1 none) and t_enq (when it entered the queue, s).

# One row per link: qlim (packets), qlim_bytes (0 = none), hdr, ring_head/ring_n/ring_base/ring_cap (its ring:
# entries [base, base + cap) of S.ring), flu_ptr/flu_p0/flu_p1 (its pieces of S.fluid), n_tx, n_drop_q,
# n_drop_l, has_fluid (0 none, 1 continuous, 2 chunks of packet size), n_offered (numbers the forced drops),
# drop_ptr/drop_p1 (its part of S.drops), loss_arrival (1: loss strikes before the queue), lane (the lane its
# arrivals go to, -1: the heap), spare_retx (bit ``1 << proto`` set: that transport's retransmitted packets are
# never lost at random on this link). Floats: rate_Bps (bytes/s), prop_s, loss, free_at, w (continuous fluid:
# unfinished work, bytes), t_last, bytes_tx, flu_pkt, bmax, flu_in, flu_drop, qbytes (queued, including the
# one in transmission), flu_next (chunked fluid: next chunk time), pkt_rate (continuous fluid: packet arrival
# rate estimate, bytes/s), pkt_t. Buffer statistics over the occupancy samples a queue trace would record
# (just before and just after each packet arrival; kept with or without traces): q_n samples, q_sum and q_peak
# their summed and largest bytes. Sojourn (the time from entering the buffer to the start of transmission) of
# every packet that starts its transmission: soj_n packets, soj_sum and soj_max seconds.
# Queue discipline (``kernel.qdisc``): qdisc (its number, 0 drop-tail: the code above; else ``kernel.qdisc.dispatch``),
# qd (its row in S.qd, -1 none), n_drop_aqm (packets the discipline dropped early or at dequeue, counted in n_drop_q
# too), n_mark (packets it marked CE instead); busy (1 while a packet is on the wire: disciplines that decide at
# dequeue, whose ring_n / qbytes count the packets waiting plus the one on the wire), tx_bytes (its bytes).
LINK = _ordered_dtype(
    # hot, per packet offered (link_enqueue, in the order it reads them): the first 3 of the row's 6 cache lines
    # (a server's link at chapter 2's scale was last touched a round trip ago: each line read is a miss)
    "qdisc n_offered loss_arrival drop_ptr drop_p1 loss:f spare_retx has_fluid ring_cap ring_base ring_head ring_n "
    "free_at:f qbytes:f hdr qlim qlim_bytes q_n q_sum:f q_peak:f rate_Bps:f n_tx bytes_tx:f lane prop_s:f "
    "soj_n soj_sum:f soj_max:f "
    # cold: fluid background, drop counters, queue disciplines
    "flu_ptr flu_p0 flu_p1 n_drop_q n_drop_l w:f t_last:f flu_pkt:f bmax:f flu_in:f flu_drop:f flu_next:f "
    "pkt_rate:f pkt_t:f qd n_drop_aqm n_mark busy tx_bytes:f")
# Lanes (``kernel/lane.py``): FIFO queues beside the heap for events whose times arrive in order, one
# row of S.lane per lane (a ring of events: time t, number s from the heap's numbering, kind k, argument a)
# and its head, count, first event's time and number and last event's time in S.laneq.
LANE = np.dtype([("t", np.float64), ("s", np.int64), ("k", np.int64), ("a", np.int64)])
LANEQ = _ordered_dtype("t_first:f s_first head n t_last:f")  # t_first: inf when empty
LANE_DELACK = 0  # delayed-ACK timers: at a fixed delay after the arming, or at the next tick
LANE_LINK0 = 1  # LANE_LINK0 + i: packet arrivals over the link of the i-th largest bandwidth-delay product
N_LINK_LANES = 2
LANE_RTO0 = LANE_LINK0 + N_LINK_LANES  # LANE_RTO0 + n - 1: BSD retransmission timers set n ticks ahead
N_RTO_LANES = 6
N_LANES = LANE_RTO0 + N_RTO_LANES

# Links' rings (departure time and bytes of each queued packet or fluid chunk); piecewise-constant rates.
RING = np.dtype([("dep", np.float64), ("nbytes", np.float64)])
PIECE = np.dtype([("t", np.float64), ("rate", np.float64)])

# One row per message: conn, dir, size (-1 bulk), begin/end (stream sequence numbers of its first byte
# and just after it), next (next written message of the same half), stream, avail (bytes available to
# send: < size while a relay fills it), relay_to (message relaying this one, -1), relay_of, pool (-1:
# its own conn, else conn is set when written), ssn (SCTP: its stream sequence number, RFC 4960 sec. 6.5,
# from S.ssn_next when written; -1 otherwise). Floats: start, delay, write, done (times, s).
MSG = _dtype("conn dir size end next begin stream avail relay_to relay_of pool ssn", "start delay write done")

# Constant-bit-rate sources: path, size, p0/p1/ptr (its pieces of S.cbr_sched), sent, rcvd; start, stop.
CBR = _dtype("path size p0 p1 ptr sent rcvd", "start stop")

# Connection pools: p0/p1 (its part of S.pool_conn), rule (0 fewest bytes outstanding, 1 round robin),
# next (round robin: position of the next connection).
POOL = _dtype("p0 p1 rule next")

# Status and counters, one row: flags (OVF_* / PAUSE_ROWS), uid, free_n (released packet slots, S.pkt_free;
# pkt_hw: the slots from it up have never been used),
# events, created, delivered, drop_q, drop_l, n_pkttr, n_tcptr, n_qtr, n_cbrrec, trace (1 when tracing),
# seg_free / ooo_free (free rows of S.seg / S.ooo, S.seg_free / S.ooo_free; seg_hw / ooo_hw: the rows from it up
# have never been taken, so never written), has_relays, slot_free (free
# connection slots, S.slot_free), n_halves (2 x the scenario's connections: timer events carry
# gen * n_halves + half), slots_freed (slots given back), recycle (1: slots are given back and each connection's
# packets in flight counted; 0: one slot per connection, kept: scenarios whose first slot table holds every
# connection, and as a reference), hint (1: the event loop prefetches rows, ``kernel.loop._hint_next``).
# Floats: t_end (s).
STATUS = _dtype("flags uid free_n events created delivered drop_q drop_l n_pkttr n_tcptr n_qtr n_cbrrec trace "
                "seg_free ooo_free has_relays known_next n_known slot_free n_halves slots_freed recycle hint "
                "pkt_hw n_sojtr seg_hw ooo_hw", "t_end")

State = namedtuple("State", [
    "half", "conn", "seg", "ooo", "seg_free", "ooo_free",  # transports (half and conn: one row per slot)
    "cc",  # TCP congestion control: one row per half slot (dtype tcp.cc.registry.STATE), or one row if all are Reno
    "rate",  # delivery-rate samples per sent segment (RATE, the shape of seg), or (1, 1) when no algorithm needs them
    "slot_free", "half_tpl", "conn_par", "conn_id", "half_out",  # connection slots (kernel/slot.py)
    "pkt", "pkt_free", "st",  # packets, status
    "link", "ring", "rng", "fluid", "drops", "path_ptr", "path_links",  # links and routes
    "qd", "fq",  # queue disciplines: a row per link that has one, a row per packet queue (kernel/qdisc/dispatch.py)
    "msg", "dep_ptr", "dep_msg", "cdep_ptr", "cdep_conn", "pool", "pool_conn",  # application
    "ssn_next",  # SCTP: (n_halves, streams) int64, the next stream sequence number of each half and stream
    "cbr", "cbr_sched", "cbr_rec",  # constant-bit-rate sources
    "tr_pkt", "tr_tcp", "tr_queue", "tr_soj",  # traces (2-D float)
    "heap_t", "heap_s", "heap_k", "heap_a", "heap_m",  # event heap (simcore.engine)
    "lane", "laneq",  # lanes beside the heap (kernel/lane.py)
    "known_t", "known_k", "known_a",  # events known before the run, sorted; next one at st.known_next
    # runs back to back (kernel/batch.py): control words, the state's block, its first bytes, the scratch tables'
    # block, their template's bytes, each run's seeds, each run's finished block (one-element arrays outside a batch)
    "bat", "blk", "tpl", "scr", "stpl", "bseed", "bout",
])

# per-half row tables (``kernel.link.take_row`` / ``give_row``)
ROWS_SEG = 0  # S.seg (sender scoreboards), free rows S.seg_free
ROWS_OOO = 1  # S.ooo (receiver out-of-order blocks), free rows S.ooo_free
