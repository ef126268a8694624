"""What travels on the wire, checked the same way by the server and browser tests: card
names and the keys that would carry hidden cards (both the stress harness's,
``testkit/scans.py``).  The round a client keeps from the ``events`` messages is its
client session's (``ligretto.client.Session``, strict: each event checked against what
the view showed before it)."""

from __future__ import annotations

from ligretto.testkit.scans import CARD, HIDDEN_KEYS, hidden_keys

__all__ = ["CARD", "HIDDEN_KEYS", "hidden_keys"]
