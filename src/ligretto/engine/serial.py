"""JSON forms of states, actions and events, and replay of a recorded round.

A complete state (hidden cards included) is for the authority's own storage;
what may be shown to people is a view (:mod:`ligretto.engine.views`).  A round
is also fully described by its rule set, player count, seed and action log:
:func:`replay` rebuilds the identical state and events from them.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass, field
from typing import Any

from ligretto.engine import events as ev
from ligretto.engine.actions import Action, Place, Play, Source, Turn, Vote, Withdraw
from ligretto.engine.area import Area
from ligretto.engine.cards import CARDS, Back, Card, face_text, parse_face
from ligretto.engine.events import Applied, Ending, Refused, Result
from ligretto.engine.rules import RuleSet
from ligretto.engine.state import Round

FORMAT_VERSION = 1


class FormatError(ValueError):
    """JSON that does not describe a valid state, action or record."""


# --- actions ---------------------------------------------------------------------------

_ACTION_TYPES: dict[str, type] = {"play": Play, "turn": Turn, "place": Place, "vote": Vote, "withdraw": Withdraw}
_ACTION_NAMES = {kind: name for name, kind in _ACTION_TYPES.items()}


def action_to_dict(action: Action) -> dict[str, Any]:
    """``{"type": "play", "player": 0, "source": "row", "position": 2, "pile": null}`` and so on."""
    data: dict[str, Any] = {"type": _ACTION_NAMES[type(action)], "player": action.player}
    if isinstance(action, Play):
        data.update(source=action.source.name.lower(), position=action.position, pile=action.pile)
    elif isinstance(action, Place):
        data.update(source=action.source.name.lower(), column=action.column)
    card = getattr(action, "card", None)
    if card is not None:
        data["card"] = str(card)
        if card.owner != action.player:
            data["owner"] = card.owner
    return data


def action_from_dict(data: Any) -> Action:
    """Parse an action; raises :class:`FormatError` with a clear message on bad input."""
    if not isinstance(data, dict):
        raise FormatError("an action must be a JSON object")
    kind = _ACTION_TYPES.get(str(data.get("type")))
    if kind is None:
        raise FormatError(f"unknown action type {data.get('type')!r}: expected one of {', '.join(_ACTION_TYPES)}")
    player = _int(data, "player")
    if kind in (Turn, Vote, Withdraw):
        simple: Action = kind(player)
        return simple
    source = _source(data.get("source"))
    card = _card(data, player)
    if kind is Play:
        pile = data.get("pile")
        if pile is not None and (not isinstance(pile, int) or isinstance(pile, bool)):
            raise FormatError("'pile' must be a pile number or null for a new pile")
        position = _int(data, "position") if source is Source.ROW else int(data.get("position", 0) or 0)
        return Play(player, source, pile, position, card)
    return Place(player, source, _int(data, "column"), card)


def _int(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise FormatError(f"{key!r} must be an integer")
    return value


def _source(value: Any) -> Source:
    try:
        return Source[str(value).upper()]
    except KeyError:
        raise FormatError(f"unknown source {value!r}: expected row, stack or discard") from None


def _card(data: dict[str, Any], player: int) -> Card | None:
    text = data.get("card")
    if text is None:
        return None
    owner = data.get("owner", player)
    if not isinstance(text, str) or not isinstance(owner, int) or not 0 <= owner < len(CARDS):
        raise FormatError("'card' must be written like 'r5' and 'owner' must be a seat")
    try:
        return CARDS[owner][parse_face(text)]
    except ValueError as error:
        raise FormatError(str(error)) from None


# --- events and results ----------------------------------------------------------------


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Back):
        return value.seat
    if isinstance(value, enum.Enum):
        return value.name.lower() if isinstance(value, enum.IntEnum) else value.value
    return value


def event_to_dict(event: ev.Event) -> dict[str, Any]:
    """``{"type": "card_played", "player": 0, "card": "r5", ...}``: public information only."""
    data = {"type": _snake(type(event).__name__)}
    for f in dataclasses.fields(event):
        data[f.name] = _plain(getattr(event, f.name))
    return data


def result_to_dict(result: Result) -> dict[str, Any]:
    if isinstance(result, Refused):
        return {"applied": False, "reason": result.reason.value, "message": result.reason.text}
    return {"applied": True, "events": [event_to_dict(e) for e in result.events]}


# --- complete states -------------------------------------------------------------------


def _faces(cards: list[int]) -> list[str]:
    return [face_text(f) for f in cards]


def state_to_dict(game: Round) -> dict[str, Any]:
    """Every card in its place, hidden ones included: for the authority's storage only."""
    return {
        "version": FORMAT_VERSION,
        "rules": game.rules.to_dict(),
        "players": game.players,
        "seed": game.seed,
        "areas": [
            {
                "row": [_faces(column) for column in a.row],
                "stack": _faces(a.stack),
                "hand": _faces(a.hand),
                "discard": _faces(a.discard),
                "recycles": a.recycles,
                "voted": a.voted,
                "moves": a.moves,
            }
            for a in game.areas
        ],
        "center": [
            {"colour": "rgyb"[colour], "seats": list(seats)}
            for colour, seats in zip(game.pile_colours, game.pile_seats, strict=True)
        ],
        "ending": None if game.ending is None else game.ending.value,
        "stopped_by": game.stopped_by,
        "log": [action_to_dict(a) for a in game.log],
    }


def state_from_dict(data: dict[str, Any]) -> Round:
    """Rebuild a complete state written by :func:`state_to_dict`."""
    try:
        if data.get("version") != FORMAT_VERSION:
            raise FormatError(f"unsupported state version {data.get('version')!r}")
        areas = []
        for a in data["areas"]:
            area = Area(
                [[parse_face(c) for c in column] for column in a["row"]],
                [parse_face(c) for c in a["stack"]],
                [parse_face(c) for c in a["hand"]],
                [parse_face(c) for c in a["discard"]],
            )
            area.recycles, area.voted, area.moves = int(a["recycles"]), bool(a["voted"]), int(a["moves"])
            areas.append(area)
        game = Round(RuleSet.from_dict(data["rules"]), int(data["players"]), int(data["seed"]), areas)
        for p in data["center"]:
            game.add_pile("rgyb".index(p["colour"]), [int(s) for s in p["seats"]])
        game.ending = None if data["ending"] is None else Ending(data["ending"])
        game.stopped_by = data["stopped_by"]
        game.log = [action_from_dict(a) for a in data["log"]]
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, FormatError):
            raise
        raise FormatError(f"not a valid state: {error}") from None
    return game


# --- recorded rounds and replay --------------------------------------------------------


@dataclass(slots=True)
class RoundRecord:
    """A round as rule set, player count, seed and ordered action log."""

    rules: RuleSet
    players: int
    seed: int
    actions: list[Action] = field(default_factory=list)

    @classmethod
    def of(cls, game: Round) -> RoundRecord:
        return cls(game.rules, game.players, game.seed, list(game.log))

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "rules": self.rules.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "actions": [action_to_dict(a) for a in self.actions],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoundRecord:
        try:
            if data.get("version") != FORMAT_VERSION:
                raise FormatError(f"unsupported record version {data.get('version')!r}")
            return cls(
                RuleSet.from_dict(data["rules"]),
                int(data["players"]),
                int(data["seed"]),
                [action_from_dict(a) for a in data["actions"]],
            )
        except FormatError:
            raise
        except (KeyError, TypeError, ValueError) as error:
            raise FormatError(f"not a valid round record: {error}") from None


def replay(record: RoundRecord) -> tuple[Round, list[Result]]:
    """Deal the round again and apply every recorded action: the identical state and events."""
    game = Round.deal(record.rules, record.players, record.seed)
    return game, [game.apply(action) for action in record.actions]


__all__ = [
    "Applied",
    "FormatError",
    "RoundRecord",
    "action_from_dict",
    "action_to_dict",
    "event_to_dict",
    "replay",
    "result_to_dict",
    "state_from_dict",
    "state_to_dict",
]
