"""The stress harness's scans of what its clients saw.

:func:`cards_lost`: every seat's 40 cards must be somewhere in a round's view (its row,
stack, discard pile and hand, and the center's piles by the back of each card); the
count of cards missing or extra.

:func:`hidden_cards_sent`: no frame a client received names a card that was face down
at the moment it was sent (RULES.md §9: a hand card, a Ligretto stack card below its top,
a discard card below its top -- hidden from everyone, the owner included), judged against
the engine's replay of the round from the server's SQLite file.  The cards of a round as
(seat, card) pairs, face up (:func:`public_cards`) and face down (:func:`hidden_cards`),
and the cards a message names (:func:`card_mentions`) are the one model of these checks
for the harness and the tests.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ligretto.engine.cards import DECK_SIZE
from ligretto.engine.events import Applied
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.server.records.readonly import StoredRound, stored_rounds

Card = tuple[int, str]
"""A card as (owner seat, ``r5``)."""

CARD = re.compile(r"^[rgyb](?:10|[1-9])$")
"""A card as the wire writes it."""
HIDDEN_KEYS = frozenset({"hand", "stack", "discard", "deck", "log", "seed", "hands", "stacks", "match_seed"})
"""Keys that would carry hidden cards or the seed a client could deal the round from."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One message a client of the harness received: the table's code, the seat it was sent
    to (``None``: a spectator), and the text as it came."""

    code: str
    seat: int | None
    text: str


# --- cards lost ----------------------------------------------------------------------------


def cards_of(view: dict[str, Any]) -> dict[int, int]:
    """How many of each seat's cards a round's view (the wire's ``view``) shows, face up or
    counted face down."""
    counts = {
        area["seat"]: sum(len(column) for column in area["row"])
        + area["stack_size"]
        + area["discard_size"]
        + area["hand_size"]
        for area in view["areas"]
    }
    for pile in view["center"]:
        for seat in pile["backs"]:
            counts[seat] = counts.get(seat, 0) + 1
    return counts


def cards_lost(view: dict[str, Any]) -> int:
    """Cards missing from or extra in a round's view: 0 when every seat's deck is whole."""
    return sum(abs(DECK_SIZE - count) for count in cards_of(view).values())


# --- the cards of a round, and those a message names -------------------------------------


def public_cards(game: Round) -> set[Card]:
    """Every card face up: row cards, stack and discard tops, center cards."""
    cards = set()
    for seat, area in enumerate(game.areas):
        cards |= {(seat, str(game.card(seat, f))) for column in area.row for f in column}
        for pile in (area.stack, area.discard):
            if pile:
                cards.add((seat, str(game.card(seat, pile[-1]))))
    for colour, seats in zip(game.pile_colours, game.pile_seats, strict=True):
        cards |= {(seat, str(game.card(seat, colour * 10 + n))) for n, seat in enumerate(seats)}
    return cards


def hidden_cards(game: Round) -> set[Card]:
    """Every card face down: hands, stacks below their top, discard piles below their top."""
    cards = set()
    for seat, area in enumerate(game.areas):
        for faces in (area.hand, area.stack[:-1], area.discard[:-1]):
            cards |= {(seat, str(game.card(seat, f))) for f in faces}
    return cards


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


def card_mentions(message: Any) -> tuple[list[Card], list[str]]:
    """Every card a server message names, as (owner seat, card), and every card-like
    string it holds where no owner can be told (should be none)."""
    owned: list[Card] = []
    stray: list[str] = []

    def strays(value: Any, path: str) -> None:
        if isinstance(value, str):
            if CARD.match(value):
                stray.append(f"{path}={value}")
        elif isinstance(value, dict):
            for key, item in value.items():
                strays(item, f"{path}.{key}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                strays(item, f"{path}[{i}]")

    def area_cards(area: dict[str, Any], path: str) -> None:
        seat = area["seat"]
        for key, value in area.items():
            if key == "row":
                for column in value:
                    owned.extend((seat, card) for card in column)
            elif key in ("stack_top", "discard_top"):
                if value is not None:
                    owned.append((seat, value))
            else:
                strays(value, f"{path}.{key}")

    kind = message.get("type") if isinstance(message, dict) else None
    if kind == "snapshot":
        for key, value in message.items():
            if key != "view":
                strays(value, key)
        for key, value in message["view"].items():
            if key == "areas":
                for i, area in enumerate(value):
                    area_cards(area, f"view.areas[{i}]")
            else:
                strays(value, f"view.{key}")
    elif kind == "events":
        for key, value in message.items():
            if key != "events":
                strays(value, key)
        for i, event in enumerate(message["events"]):
            for key, value in event.items():
                if key in ("card", "uncovered", "stack_top", "discard_top") and "player" in event:
                    if value is not None:
                        owned.append((event["player"], value))
                else:
                    strays(value, f"events[{i}].{key}")
    elif kind == "aimed":
        for key, value in message.items():
            if key == "card":
                if value is not None:
                    owned.append((message["seat"], value))
            else:
                strays(value, key)
    else:
        strays(message, kind or "?")
    return owned, stray


# --- hidden cards sent ---------------------------------------------------------------------


@dataclass(slots=True)
class HiddenScan:
    """What :func:`hidden_cards_sent` found."""

    hidden_cards: int = 0
    """Cards a frame named that were face down at the moment it was sent."""
    frames_scanned: int = 0
    cards_checked: int = 0
    stray_cards: int = 0
    """Card-like strings where no owner can be told (a leak or a new field: should be 0)."""
    hidden_keys: int = 0
    """Frames with a key that would carry hidden cards or a seed (``hand``, ``log``, ``seed``)."""
    misaddressed: int = 0
    """Snapshots whose ``viewer`` is not the seat they were sent to."""
    unplaced: int = 0
    """Frames naming cards that fit no moment of their round (an ``events`` whose ``seq`` is
    no applied action, a snapshot whose shape the round never had): judged against every
    state of the round."""
    unknown_rounds: int = 0
    """Frames naming cards of a round the database does not hold (not judged)."""
    problems: list[str] = field(default_factory=list)
    """The first few findings, for people."""

    @property
    def leaks(self) -> int:
        """Everything that must be zero."""
        return self.hidden_cards + self.stray_cards + self.hidden_keys + self.misaddressed + self.unknown_rounds

    def note(self, text: str) -> None:
        if len(self.problems) < 20:
            self.problems.append(text)


@dataclass(slots=True)
class _Sent:
    """A frame that names cards, waiting to be placed in its round."""

    frame: Frame
    message: dict[str, Any]
    owned: list[Card]
    suspect: set[Card] | None = None
    """The named cards face down at every moment the frame fits (``None``: none fits yet)."""

    def judge(self, public: set[Card]) -> None:
        self.suspect = (set(self.owned) if self.suspect is None else self.suspect) - public


def hidden_cards_sent(db: Path | str, frames: Iterable[Frame]) -> HiddenScan:
    """Scan every frame a harness client received for cards that were face down for its
    recipient when it was sent, against the engine's replay of each round from the server's
    database ``db`` (its SQLite file, opened read-only, or a service's PostgreSQL database
    by URL: a running server is not disturbed).

    Where a frame belongs in its round: an ``events`` message is action number ``seq`` of
    round ``round`` of its table (the store files every action the engine was given, refused
    ones too, under that index), so it is judged against the round right after that action
    -- exactly; an ``aimed`` message (live presence) names the round after its ``seq`` too.
    A ``snapshot`` carries only its round's number, so it is placed by its
    shape: everything its view shows but the cards' names (the row columns' lengths, which
    tops are there, sizes, votes, the center's piles and backs).  Every card of a seat is
    face up or face down, and the shape says where each card lies, so a snapshot taken at
    a known moment fits that moment; where several moments have the same shape (a hand
    turned round and round with nothing played) it is judged against their union: a card
    counts as hidden only if it was face down at every one of them.  A table's rounds are
    numbered within a match, so round ``n`` of every match of the table is a candidate, and
    their union is taken too.  A frame that fits no moment (see :attr:`HiddenScan.unplaced`)
    is judged against every state of its round; one whose round is not in the file is not
    judged and is counted (:attr:`HiddenScan.unknown_rounds`).
    """
    scan = HiddenScan()
    waiting: dict[tuple[str, int], list[_Sent]] = defaultdict(list)
    for frame in frames:
        scan.frames_scanned += 1
        sent = _read_frame(frame, scan)
        if sent is not None:
            waiting[(frame.code, sent.message["round"])].append(sent)
    stored = stored_rounds(db, {code for code, _ in waiting}) if waiting else {}
    for key, sents in waiting.items():
        candidates = stored.get(key, [])
        if not candidates:
            scan.unknown_rounds += len(sents)
            scan.note(f"{key}: no such round in {db}, {len(sents)} frames not judged")
            continue
        _place(candidates, sents)
        unplaced = [s for s in sents if s.suspect is None]
        if unplaced:
            ever = _ever_public(candidates)
            for sent in unplaced:
                scan.unplaced += 1
                sent.judge(ever)
        for sent in sents:
            scan.cards_checked += len(sent.owned)
            if sent.suspect:
                scan.hidden_cards += len(sent.suspect)
                scan.note(f"HIDDEN {sorted(sent.suspect)} sent to seat {sent.frame.seat} of {key}: {sent.frame.text}")
    return scan


def _read_frame(frame: Frame, scan: HiddenScan) -> _Sent | None:
    """The frame's checks that need no replay; the frame, if it names cards."""
    try:
        message = json.loads(frame.text)
    except ValueError:
        scan.note(f"not JSON: {frame.text[:80]!r}")
        return None
    keys = hidden_keys(message)
    if keys:
        scan.hidden_keys += 1
        scan.note(f"hidden keys {keys} in {frame.text}")
    owned, stray = card_mentions(message)
    if stray:
        scan.stray_cards += len(stray)
        scan.note(f"cards of no known seat {stray} in {frame.text}")
    if not owned:
        return None
    if message["type"] == "snapshot" and message["view"]["viewer"] != frame.seat:
        scan.misaddressed += 1
        scan.note(f"a snapshot for viewer {message['view']['viewer']} sent to seat {frame.seat}")
    return _Sent(frame, message, owned)


def _shape(data: dict[str, Any]) -> str:
    """A view (the wire's) without the cards' names and the viewer."""
    areas = [
        {
            **area,
            "row": [len(column) for column in area["row"]],
            "stack_top": area["stack_top"] is not None,
            "discard_top": area["discard_top"] is not None,
        }
        for area in data["areas"]
    ]
    return json.dumps({**data, "viewer": None, "areas": areas}, sort_keys=True)


def _place(candidates: list[StoredRound], sents: list[_Sent]) -> None:
    """Judge each frame at every moment of the candidate rounds it fits."""
    events: dict[int, list[_Sent]] = defaultdict(list)
    snapshots: dict[str, list[_Sent]] = defaultdict(list)
    for sent in sents:
        if sent.message["type"] in ("events", "aimed"):
            events[sent.message["seq"]].append(sent)
        else:
            snapshots[_shape(sent.message["view"])].append(sent)
    for stored in candidates:
        for index, game, result in stored.replay():
            # (An aim may follow a refused action: its round is as it was, and so is its seq.)
            here = [
                s
                for s in events.get(index, ())
                if s.message["type"] == "aimed" or s.message["by"] == _player(stored, index)
            ]
            refused = result is not None and not isinstance(result, Applied)
            if snapshots and not refused:  # refused: a snapshot fitting it fitted already
                here += snapshots.get(_shape(view(game, None).to_dict()), [])
            if here:
                public = public_cards(game)
                for sent in here:
                    sent.judge(public)


def _player(stored: StoredRound, index: int) -> int:
    return int(stored.actions[index]["player"])


def _ever_public(candidates: list[StoredRound]) -> set[Card]:
    ever: set[Card] = set()
    for stored in candidates:
        for _index, game, _result in stored.replay():
            ever |= public_cards(game)
    return ever
