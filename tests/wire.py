"""What travels on the wire, checked the same way by the server and browser tests: card
names, the keys that would carry hidden cards, and the public mirror of a round kept from
``events`` messages (each event checked against what the view showed before it)."""

from __future__ import annotations

import re
from typing import Any

CARD = re.compile(r"^[rgyb](?:10|[1-9])$")
HIDDEN_KEYS = frozenset({"hand", "stack", "discard", "deck", "log", "seed", "hands", "stacks", "match_seed"})
"""Keys that would carry hidden cards or the seed a client could deal the round from."""


def card_number(card: str) -> int:
    return int(card[1:])


def colour_letter(colour: str) -> str:
    return colour[0]


def apply_events(view: dict[str, Any], events: list[dict[str, Any]], problems: list[str]) -> None:
    """Apply one ``events`` message to a view (as sent in snapshots), checking each event
    against what the view showed before it."""
    areas = view["areas"]
    center = view["center"]

    def check(ok: bool, text: str) -> None:
        if not ok:
            problems.append(f"{text} (event {event})")

    for event in events:
        kind = event["type"]
        if kind == "pile_started":
            check(event["pile"] == len(center), "a new pile must get the next index")
            center.append({"index": event["pile"], "colour": event["colour"], "top": 0, "backs": []})
        elif kind == "card_played":
            area = areas[event["player"]]
            card, source = event["card"], event["source"]
            if source == "row":
                column = area["row"][event["position"]]
                check(bool(column) and column[-1] == card, "the card played was not shown at that row position")
                if column:
                    column.pop()
                check((column[-1] if column else None) == event["uncovered"], "wrong uncovered row card")
            elif source in ("stack", "discard"):
                check(area[f"{source}_top"] == card, f"the card played was not the {source} top")
                area[f"{source}_size"] -= 1
                area[f"{source}_top"] = event["uncovered"]
                check((area[f"{source}_size"] == 0) == (event["uncovered"] is None), f"{source} size and top disagree")
            else:
                check(False, "unknown source")
            if 0 <= event["pile"] < len(center):
                pile = center[event["pile"]]
                check(colour_letter(pile["colour"]) == card[0], "the card's colour does not match its pile")
                check(pile["top"] + 1 == card_number(card), "the card's number does not follow its pile's top")
                check(event["new_pile"] == (card_number(card) == 1), "new_pile must say whether a 1 started it")
                pile["top"] += 1
                pile["backs"].append(event["player"])
            else:
                check(False, "no such pile")
        elif kind == "row_refilled":
            area = areas[event["player"]]
            check(area["stack_top"] == event["card"], "the row was refilled with something else than the stack top")
            area["row"][event["position"]].append(event["card"])
            area["stack_size"] -= 1
            area["stack_top"] = event["stack_top"]
        elif kind == "pile_completed":
            check(center[event["pile"]]["top"] == 10, "a pile completes at 10")
        elif kind == "hand_turned":
            area = areas[event["player"]]
            check(1 <= event["count"] <= min(3, area["hand_size"]), "turned more cards than the hand holds")
            area["hand_size"] -= event["count"]
            area["discard_size"] += event["count"]
            area["discard_top"] = event["discard_top"]
        elif kind == "hand_recycled":
            area = areas[event["player"]]
            check(event["cards"] == area["discard_size"], "a recycle takes the whole discard pile")
            area["hand_size"] += event["cards"]
            area["discard_size"] = 0
            area["discard_top"] = None
        elif kind == "card_placed":
            area = areas[event["player"]]
            source = event["source"]
            check(area[f"{source}_top"] == event["card"], f"the card placed was not the {source} top")
            area["row"][event["column"]].append(event["card"])
            area[f"{source}_size"] -= 1
            area[f"{source}_top"] = event["uncovered"]
        elif kind == "vote_cast":
            areas[event["player"]]["voted"] = True
        elif kind == "vote_withdrawn":
            areas[event["player"]]["voted"] = False
        elif kind == "votes_cleared":
            for area in areas:
                area["voted"] = False
        elif kind == "round_stopped":
            view["ending"] = event["ending"]
            view["stopped_by"] = event["player"]
        else:
            check(False, f"unknown event type {kind!r}")


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
