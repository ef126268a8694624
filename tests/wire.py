"""What travels on the wire, checked the same way by the server and browser tests: card
names and the keys that would carry hidden cards (both the stress harness's,
``testkit/scans.py``), and the public mirror of a round kept from ``events`` messages
(``ligretto.client``'s model in strict mode: each event checked against what the view
showed before it)."""

from __future__ import annotations

from typing import Any

from ligretto.client.mirror import Mirror
from ligretto.testkit.scans import CARD, HIDDEN_KEYS, hidden_keys

__all__ = ["CARD", "HIDDEN_KEYS", "apply_events", "hidden_keys"]


def apply_events(view: dict[str, Any], events: list[dict[str, Any]], problems: list[str]) -> None:
    """Apply one ``events`` message to a view (as sent in snapshots), in place, checking each
    event against what the view showed before it: the client model in strict mode."""
    mirror = Mirror.from_view(view, strict=True)
    mirror.apply(events)
    problems += mirror.problems or []
    view.clear()
    view.update(mirror.to_dict())
