"""What travels on the wire, checked the same way by the server and browser tests: card
names, the keys that would carry hidden cards, and the public mirror of a round kept from
``events`` messages (``ligretto.client``'s model in strict mode: each event checked
against what the view showed before it)."""

from __future__ import annotations

import re
from typing import Any

from ligretto.client.mirror import Mirror

CARD = re.compile(r"^[rgyb](?:10|[1-9])$")
HIDDEN_KEYS = frozenset({"hand", "stack", "discard", "deck", "log", "seed", "hands", "stacks", "match_seed"})
"""Keys that would carry hidden cards or the seed a client could deal the round from."""


def apply_events(view: dict[str, Any], events: list[dict[str, Any]], problems: list[str]) -> None:
    """Apply one ``events`` message to a view (as sent in snapshots), in place, checking each
    event against what the view showed before it: the client model in strict mode."""
    mirror = Mirror.from_view(view, strict=True)
    mirror.apply(events)
    problems += mirror.problems or []
    view.clear()
    view.update(mirror.to_dict())


def hidden_keys(message: Any, path: str = "") -> list[str]:
    """Paths of keys that would carry hidden cards (hand, stack, discard as lists or cards,
    the action log, a seed)."""
    found = []
    if isinstance(message, dict):
        for key, value in message.items():
            # A count (``"stack": 2`` on the score sheet) is public; cards or a seed are not.
            if key in HIDDEN_KEYS and (key in ("seed", "match_seed", "log") or not isinstance(value, int)):
                found.append(f"{path}.{key}")
            found += hidden_keys(value, f"{path}.{key}")
    elif isinstance(message, list):
        for i, value in enumerate(message):
            found += hidden_keys(value, f"{path}[{i}]")
    return found
