"""Numba helpers of the 'Ticket' policy: ticket tokens and the server's check of a presented ticket.

A ticket is a sequentially numbered identifier (0, 1, 2, ...) issued by the server together with a random
64-bit token that the server stores beside it (thesis, 'Ticket' protocol: "issue a random number with each
ticket ... Any ticket not submitted with its assigned random number is to be rejected as counterfeit").

Server state for tickets, as arrays indexed by ticket number (``n_issued`` tickets exist):

- ``token``  uint64: the token issued with the ticket;
- ``state``  int64: ``TK_WAIT`` (on the wait list), ``TK_READY`` (on the ready list), ``TK_USED`` (the
  large transfer it admitted has started: the ticket is spent), ``TK_EXPIRED`` (left unclaimed on the
  ready list for longer than the time-to-live);
- ``last_s`` float64: the later of the time it entered the ready list and the last time it was presented.

``check_ticket`` is what the kernel calls whenever a client presents a ticket; it is also public so a test
(or a notebook) can present forged or replayed tickets against the final server state of a real run.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "TK_WAIT",
    "TK_READY",
    "TK_USED",
    "TK_EXPIRED",
    "TICKET_OK_READY",
    "TICKET_OK_WAIT",
    "TICKET_UNKNOWN",
    "TICKET_BAD_TOKEN",
    "TICKET_SPENT",
    "TICKET_EXPIRED",
    "TICKET_VERDICTS",
    "ticket_token",
    "check_ticket",
]

TK_WAIT = 1
TK_READY = 2
TK_USED = 3
TK_EXPIRED = 4

TICKET_OK_READY = 0
TICKET_OK_WAIT = 1
TICKET_UNKNOWN = 2
TICKET_BAD_TOKEN = 3
TICKET_SPENT = 4
TICKET_EXPIRED = 5

#: verdict code -> name, for messages and notebooks
TICKET_VERDICTS = {
    TICKET_OK_READY: "valid, on the ready list",
    TICKET_OK_WAIT: "valid, still on the wait list",
    TICKET_UNKNOWN: "rejected: no such ticket number was issued",
    TICKET_BAD_TOKEN: "rejected: token does not match (forged)",
    TICKET_SPENT: "rejected: ticket already used (replayed)",
    TICKET_EXPIRED: "rejected: ticket expired unclaimed",
}


@njit(cache=True)
def ticket_token(key, number):
    """Return the uint64 token of ticket ``number`` under the server's secret ``key`` (splitmix64 mix).

    ``key`` is a uint64 drawn from the run's seed in numpy before the kernel; a client that does not know
    it cannot compute a token, so a made-up (number, token) pair is rejected with probability 1 - 2**-64.
    """
    z = np.uint64(key) + np.uint64(number + 1) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def check_ticket(number, token, tk_token, tk_state, tk_last_s, n_issued, now_s, ttl_s):
    """Return the server's verdict code (``TICKET_*``) on a presented ``(number, token)`` at ``now_s``.

    Rejections, in this order: a number never issued (``TICKET_UNKNOWN``), a token that is not the one
    issued with that number (``TICKET_BAD_TOKEN``: forged), a ticket already spent on a transfer
    (``TICKET_SPENT``: replayed), a ticket that sat on the ready list unclaimed for more than ``ttl_s``
    seconds (``TICKET_EXPIRED``). Otherwise ``TICKET_OK_READY`` or ``TICKET_OK_WAIT``. Pure: it does not
    change the server state (the kernel does that after the verdict).
    """
    if number < 0 or number >= n_issued:
        return TICKET_UNKNOWN
    if tk_token[number] != np.uint64(token):
        return TICKET_BAD_TOKEN
    st = tk_state[number]
    if st == TK_USED:
        return TICKET_SPENT
    if st == TK_EXPIRED:
        return TICKET_EXPIRED
    if st == TK_READY:
        if now_s - tk_last_s[number] > ttl_s:
            return TICKET_EXPIRED
        return TICKET_OK_READY
    return TICKET_OK_WAIT
