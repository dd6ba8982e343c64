"""The congestion states and events the TCP sender reports to its congestion control (``tcp.cc.dispatch``),
numbered as plain constants so that every algorithm module can read them (ns-3's ``TcpCongState_t``)."""

CA_OPEN = 0  # no loss episode: new ACKs grow the window (recovery over, or never entered)
CA_RECOVERY = 1  # fast retransmit sent, recovering (RFC 5681 / 6582 / 6675)
CA_LOSS = 2  # a retransmission timeout: cwnd = 1 SMSS, go back N
CA_CWR = 3  # an ECN echo reduced the window (RFC 3168 sec. 6.1.2): no retransmission
CA_IDLE = 4  # the sender was idle (nothing outstanding) for an RTO and is about to send again
