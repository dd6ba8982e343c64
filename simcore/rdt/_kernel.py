"""Numba: the event loop of stop-and-wait, Go-Back-N and Selective Repeat over one lossy link pair.

One sender, one receiver. The sender's link sends one packet at a time, back to back (each takes ``tx_s``):
whenever it is free, the sender starts the next packet it may send, retransmissions first. A data packet
reaches the receiver ``tx_s + prop_s`` after its transmission starts; an ACK leaves the receiver as soon as its
own link is free, takes ``ack_tx_s`` and ``prop_s``. Losses are drawn from the Generator ``rng`` passed in, one
uniform per data transmission as it starts and one per ACK as it leaves, in event order (a transmission whose
number is in ``drop_data`` / ``drop_ack`` is lost whatever its draw). Events go through ``simcore.engine``'s heap,
ordered by (time, push order). Sequence numbers are not wrapped (0, 1, 2 ...); stop-and-wait is Go-Back-N with N = 1
and is labelled with the alternating bit by the plots.

Sender state (named): ``base`` (oldest unacknowledged), ``next_seq`` (next new packet), GBN's ``send_ptr``
(next packet to send again after a timeout) and single timer ``gbn_deadline``; SR's per-packet ``acked``,
``deadline`` and a FIFO of packets whose timer expired (``rq``). Receiver: GBN's ``expected``; SR's
``rcv_base`` and ``buffered``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcore.engine import heap_insert, heap_new, heap_pop

GBN = 0
SR = 1

EV_DATA = 0  # data transmission ``arg`` reaches the receiver (its last bit)
EV_ACK = 1  # ACK ``arg`` reaches the sender
EV_TIMER = 2  # a timer set for ``arg`` expires (GBN: arg unused; SR: the packet)
EV_LINK = 3  # the sender's link has finished a transmission

# what the receiver did with a data packet (``data_action``)
ACT_LOST = -1  # never arrived
ACT_DELIVER = 0  # in order: delivered (with any packets buffered behind it, SR)
ACT_BUFFER = 1  # SR: out of order but in the window: buffered
ACT_DISCARD = 2  # GBN: out of order: discarded
ACT_DUPLICATE = 3  # already received before: discarded (and ACKed again)
ACT_IGNORE = 4  # SR: outside both windows: no ACK

OUT_TIMEOUTS = 0  # the counts returned in ``counts``
OUT_DATA = 1
OUT_ACKS = 2
OUT_DELIVERED = 3
OUT_DONE = 4  # 1: the application's n_packets were all acknowledged before the end; 2: max_sends was reached


@njit(cache=True)
def _grow(ht, hs, hk, ha, meta):
    """Return the heap's arrays copied into twice the room."""
    n = meta[0]
    cap = 2 * ht.shape[0]
    nt = np.empty(cap, np.float64)
    ns = np.empty(cap, np.int64)
    nk = np.empty(cap, np.int64)
    na = np.empty(cap, np.int64)
    nt[:n] = ht[:n]
    ns[:n] = hs[:n]
    nk[:n] = hk[:n]
    na[:n] = ha[:n]
    return nt, ns, nk, na


@njit(cache=True)
def run(proto, window, tx_s, ack_tx_s, prop_s, timeout_s, duration_s, n_packets, every_ack, rng, p_data, p_ack,
        drop_data, drop_ack, max_tx, max_sends):
    """Run one transfer; return the records (see ``simcore.rdt.model.RdtResult``) and ``counts``.

    proto: GBN (0) or SR (1). n_packets: 0 for an endless supply. every_ack: GBN's timer restarts on every ACK
    (True) or only on ACKs of new packets (False). drop_data, drop_ack: sorted transmission numbers lost for sure.
    max_tx: the most data transmissions the run can start (the link's packet times in ``duration_s``, plus two).
    max_sends: stop the run when it is about to start data transmission number ``max_sends`` (0: never); the
    run then ends at that moment (``OUT_DONE`` = 2).
    Every record array has room for ``max_tx`` rows but is allocated empty or zeroed (``np.empty``, ``np.zeros``:
    the operating system maps pages only when they are written), and each row is filled when it is first used, so
    a run that sends little (stop-and-wait on a long, fast link) touches little memory.
    """
    data_t = np.empty(max_tx, np.float64)
    data_seq = np.empty(max_tx, np.int64)
    data_retx = np.zeros(max_tx, np.bool_)
    data_arrive = np.empty(max_tx, np.float64)
    data_action = np.empty(max_tx, np.int8)
    ack_t = np.empty(max_tx, np.float64)
    ack_no = np.empty(max_tx, np.int64)
    ack_arrive = np.empty(max_tx, np.float64)
    to_t = np.empty(max_tx, np.float64)
    to_seq = np.empty(max_tx, np.int64)
    nseq = max_tx + window + 2
    delivered_t = np.empty(nseq, np.float64)  # when packet s reached the receiving application (set when first sent)
    sent = np.zeros(nseq, np.int64)  # transmissions of packet s so far
    acked = np.zeros(nseq, np.bool_)  # SR sender
    deadline = np.empty(nseq, np.float64)  # SR sender: each packet's timer (set when first sent)
    buffered = np.zeros(nseq, np.bool_)  # SR receiver
    i_drop_data = 0
    i_drop_ack = 0
    rq = np.empty(window + 1, np.int64)  # SR: packets to retransmit, FIFO ring
    rq_head = 0
    rq_len = 0

    ht, hs, hk, ha, meta = heap_new(64)
    base = 0
    next_seq = 0
    send_ptr = 0
    gbn_deadline = np.inf
    link_free = 0.0
    ack_free = 0.0
    expected = 0  # GBN receiver
    rcv_base = 0  # SR receiver
    n_data = 0
    n_ack = 0
    n_to = 0
    n_delivered = 0
    done = 0
    t = 0.0

    pending_send = True  # try to send at t = 0
    while True:
        if meta[0] + 4 > ht.shape[0]:  # room for this iteration's pushes (at most 3); grows rarely
            ht, hs, hk, ha = _grow(ht, hs, hk, ha, meta)
        if pending_send:
            pending_send = False
            # the sender's link is free: start the next packet it may send, retransmissions first
            if max_sends > 0 and n_data >= max_sends and link_free <= t:
                done = 2
                break
            if link_free <= t and n_data < max_tx:
                seq = -1
                if proto == GBN:
                    if send_ptr < base:
                        send_ptr = base
                    if send_ptr < next_seq:
                        seq = send_ptr
                    elif next_seq < base + window and (n_packets == 0 or next_seq < n_packets):
                        seq = next_seq
                        next_seq += 1
                        delivered_t[seq] = np.nan
                    if seq >= 0:
                        send_ptr = seq + 1
                        if gbn_deadline == np.inf:  # K&R fig. 3.20: start the timer if it is not running
                            gbn_deadline = t + timeout_s
                            heap_insert(ht, hs, hk, ha, meta, gbn_deadline, EV_TIMER, 0)
                else:
                    while rq_len > 0 and seq < 0:
                        s = rq[rq_head]
                        rq_head = (rq_head + 1) % rq.shape[0]
                        rq_len -= 1
                        if not acked[s]:  # its ACK may have come while it waited for the link
                            seq = s
                    if seq < 0 and next_seq < base + window and (n_packets == 0 or next_seq < n_packets):
                        seq = next_seq
                        next_seq += 1
                        delivered_t[seq] = np.nan
                    if seq >= 0:
                        deadline[seq] = t + timeout_s
                        heap_insert(ht, hs, hk, ha, meta, deadline[seq], EV_TIMER, seq)
                if seq >= 0:
                    k = n_data
                    n_data += 1
                    data_t[k] = t
                    data_seq[k] = seq
                    data_retx[k] = sent[seq] > 0
                    data_arrive[k] = np.nan
                    data_action[k] = ACT_LOST
                    sent[seq] += 1
                    link_free = t + tx_s
                    heap_insert(ht, hs, hk, ha, meta, link_free, EV_LINK, k)
                    lost = rng.random() < p_data
                    if i_drop_data < drop_data.shape[0] and drop_data[i_drop_data] == k:
                        lost = True
                        i_drop_data += 1
                    if not lost:
                        data_arrive[k] = t + tx_s + prop_s
                        heap_insert(ht, hs, hk, ha, meta, data_arrive[k], EV_DATA, k)
        if meta[0] == 0:
            break
        t, kind, arg = heap_pop(ht, hs, hk, ha, meta)
        if t > duration_s:
            break
        if kind == EV_LINK:
            pending_send = True
        elif kind == EV_DATA:
            seq = data_seq[arg]
            ackno = -2  # -2: send no ACK
            if proto == GBN:
                if seq == expected:
                    delivered_t[seq] = t
                    n_delivered += 1
                    expected += 1
                    data_action[arg] = ACT_DELIVER
                elif seq < expected:
                    data_action[arg] = ACT_DUPLICATE
                else:
                    data_action[arg] = ACT_DISCARD
                ackno = expected - 1  # cumulative: everything up to expected - 1 received (-1: nothing yet)
            else:
                if rcv_base <= seq < rcv_base + window:
                    ackno = seq
                    if buffered[seq]:
                        data_action[arg] = ACT_DUPLICATE
                    else:
                        buffered[seq] = True
                        data_action[arg] = ACT_BUFFER
                        if seq == rcv_base:
                            data_action[arg] = ACT_DELIVER
                            while buffered[rcv_base]:
                                delivered_t[rcv_base] = t
                                n_delivered += 1
                                rcv_base += 1
                elif rcv_base - window <= seq < rcv_base:
                    ackno = seq  # K&R fig. 3.26: re-ACK a packet already delivered
                    data_action[arg] = ACT_DUPLICATE
                else:
                    data_action[arg] = ACT_IGNORE
            if ackno > -2:
                j = n_ack
                n_ack += 1
                start = max(t, ack_free)
                ack_free = start + ack_tx_s
                ack_t[j] = start
                ack_no[j] = ackno
                ack_arrive[j] = np.nan
                lost = rng.random() < p_ack
                if i_drop_ack < drop_ack.shape[0] and drop_ack[i_drop_ack] == j:
                    lost = True
                    i_drop_ack += 1
                if not lost:
                    ack_arrive[j] = start + ack_tx_s + prop_s
                    heap_insert(ht, hs, hk, ha, meta, ack_arrive[j], EV_ACK, j)
        elif kind == EV_ACK:
            n = ack_no[arg]
            if proto == GBN:
                new = n >= base
                if new:
                    base = n + 1
                if new or every_ack:
                    if base >= next_seq:
                        gbn_deadline = np.inf  # nothing outstanding: stop the timer
                    else:
                        gbn_deadline = t + timeout_s
                        heap_insert(ht, hs, hk, ha, meta, gbn_deadline, EV_TIMER, 0)
            else:
                if base <= n < next_seq and not acked[n]:
                    acked[n] = True
                    deadline[n] = np.inf
                    while base < next_seq and acked[base]:
                        base += 1
            if n_packets > 0 and base >= n_packets:
                done = 1
                break
            pending_send = True
        else:  # EV_TIMER: stale unless it is the timer's current deadline
            if proto == GBN:
                if t == gbn_deadline:
                    to_t[n_to] = t
                    to_seq[n_to] = base
                    n_to += 1
                    gbn_deadline = np.inf  # restarted when packet base is sent again
                    send_ptr = base
                    pending_send = True
            elif t == deadline[arg] and not acked[arg]:
                to_t[n_to] = t
                to_seq[n_to] = arg
                n_to += 1
                deadline[arg] = np.inf  # restarted when it is sent again
                rq[(rq_head + rq_len) % rq.shape[0]] = arg
                rq_len += 1
                pending_send = True
    end_s = t if done > 0 else duration_s
    counts = np.array([n_to, n_data, n_ack, n_delivered, done], np.int64)
    return (data_t[:n_data].copy(), data_seq[:n_data].copy(), data_retx[:n_data].copy(),
            data_arrive[:n_data].copy(), data_action[:n_data].copy(), ack_t[:n_ack].copy(), ack_no[:n_ack].copy(),
            ack_arrive[:n_ack].copy(), to_t[:n_to].copy(), to_seq[:n_to].copy(), delivered_t, counts, end_s)
