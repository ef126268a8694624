"""Rule sets: every option of RULES.md, the presets, validation and JSON form."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ligretto.engine.cards import MAX_PLAYERS, MIN_PLAYERS


class RuleError(ValueError):
    """An unknown rule option, a bad option value or an unknown preset."""


class ShortTurn(enum.StrEnum):
    """What turning does when fewer than 3 cards are left in the hand (RULES.md §3)."""

    TURN_REMAINING = "turn_remaining"
    RECYCLE = "recycle"


class Scoring(enum.StrEnum):
    """How a round is scored (RULES.md §5)."""

    CARDS = "cards"
    FIRST_OUT = "first_out"


class MatchEndKind(enum.StrEnum):
    TARGET = "target"
    ROUNDS = "rounds"


ROW_SIZE_NAMES = ("classic", "by_boxes")
_ROW_SIZES = {
    # players: (classic, by_boxes)  -- RULES.md §2
    2: (5, 5),
    3: (4, 5),
    4: (3, 5),
}


MATCH_END_MAX = {MatchEndKind.ROUNDS: 1000, MatchEndKind.TARGET: 10_000}
"""The largest ``N`` of each kind of ``match_end``: a match of 1,000 rounds outlasts any
sitting (the load test plays one that never ends while it measures, the simulator cuts a
match off there), and 10,000 points is a target no table reaches by playing."""


MAX_DIGITS = 18
"""The most digits of a number written in text (an option, a repeat, a query): no number
of the game comes near, and ``int`` of a few thousand digits takes time (Python refuses 4,301)."""


def whole_number(text: str) -> int | None:
    """``text`` as a whole number written in ASCII digits alone, or ``None``: ``"²"``,
    ``"①"``, ``"٣"`` and ``"１"`` are digits to ``str.isdigit`` (and some to ``int``) but
    not numbers anyone writes; no sign, space, point, exponent, nor more than
    :data:`MAX_DIGITS` digits.  The one reader of a number in text: the rules, the bots'
    repeats, the HTTP API's queries and addresses."""
    if not (0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()):
        return None
    return int(text)


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """When a match ends: ``target:N`` (a total reaches N) or ``rounds:N``, ``N`` from 1
    to :data:`MATCH_END_MAX` of its kind."""

    kind: MatchEndKind
    n: int

    def __str__(self) -> str:
        return f"{self.kind.value}:{self.n}"

    @classmethod
    def parse(cls, text: str) -> MatchEnd:
        kind, _, number = str(text).partition(":")
        n = whole_number(number.strip())
        if kind not in ("target", "rounds") or n is None or not 1 <= n <= MATCH_END_MAX[MatchEndKind(kind)]:
            raise RuleError(f"bad value {text!r} for option 'match_end': expected {MATCH_END_ALLOWED}")
        return cls(MatchEndKind(kind), n)


MATCH_END_ALLOWED = (
    f"'target:N' (N 1-{MATCH_END_MAX[MatchEndKind.TARGET]}) or 'rounds:N' (N 1-{MATCH_END_MAX[MatchEndKind.ROUNDS]})"
)


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The full set of rule options (RULES.md §2-§7).  The defaults are the ``classic`` preset."""

    row_size: str | int = "classic"
    short_turn: ShortTurn = ShortTurn.TURN_REMAINING
    recycle_shuffle: bool = True
    stack_penalty: int = 2
    floor_at_zero: bool = False
    scoring: Scoring = Scoring.CARDS
    match_end: MatchEnd = MatchEnd(MatchEndKind.ROUNDS, 5)
    expert: bool = False

    def __post_init__(self) -> None:
        _check(self)

    def row_length(self, players: int) -> int:
        """Cards in each player's row for ``players`` players."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RuleError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS}, not {players}")
        if isinstance(self.row_size, int):
            return self.row_size
        classic, by_boxes = _ROW_SIZES.get(players, (3, 4 if players <= 8 else 3))
        return classic if self.row_size == "classic" else by_boxes

    def replace(self, **options: Any) -> RuleSet:
        """A copy with some options changed; values may be given as text, as on a command line."""
        return RuleSet.from_dict({**self.to_dict(), **options})

    def changes(self) -> dict[str, Any]:
        """The options that differ from ``classic`` (as :meth:`to_dict` writes them); empty
        for the classic rules."""
        classic = RuleSet().to_dict()
        return {name: value for name, value in self.to_dict().items() if value != classic[name]}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form: every option by name."""
        return {
            "row_size": self.row_size,
            "short_turn": self.short_turn.value,
            "recycle_shuffle": self.recycle_shuffle,
            "stack_penalty": self.stack_penalty,
            "floor_at_zero": self.floor_at_zero,
            "scoring": self.scoring.value,
            "match_end": str(self.match_end),
            "expert": self.expert,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Build from a mapping of option names to values (missing options take classic defaults)."""
        if not isinstance(data, Mapping):
            raise RuleError(f"a rule set must be a mapping of options, not {type(data).__name__}")
        unknown = sorted(set(data) - set(OPTIONS))
        if unknown:
            raise RuleError(f"unknown rule option {unknown[0]!r}: options are {', '.join(OPTIONS)}")
        return cls(**{name: OPTIONS[name].parse(value) for name, value in data.items()})

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """One of the presets of RULES.md §8."""
        try:
            return cls.from_dict(PRESETS[name])
        except KeyError:
            raise RuleError(f"unknown preset {name!r}: presets are {', '.join(PRESETS)}") from None


class OptionKind(enum.StrEnum):
    """The shape of an option's values: what a form needs to offer them."""

    CHOICE = "choice"
    """One of ``Option.choices``."""
    FLAG = "flag"
    """True or false."""
    NUMBER = "number"
    """A whole number from ``Option.low`` to ``Option.high``."""
    MATCH_END = "match_end"
    """``kind:N``: a kind from ``Option.choices`` and a whole number ``N`` from
    ``Option.low`` to the kind's :data:`MATCH_END_MAX`."""


@dataclass(frozen=True, slots=True)
class Option:
    """One rule option: its name, allowed values (in words and as data) and parser."""

    name: str
    allowed: str
    help: str
    kind: OptionKind
    choices: tuple[str | int, ...] = ()
    low: int = 0
    high: int | None = None

    def parse(self, value: Any) -> Any:
        return _PARSERS[self.name](value, self)

    def text(self, value: Any) -> str:
        """A value of this option as written on a command line (``--set name=text``):
        ``true``, ``first_out``, ``rounds:5``, ``3``; parsing the text gives the value back."""
        parsed = self.parse(value)
        if isinstance(parsed, bool):
            return "true" if parsed else "false"
        return str(parsed)

    def error(self, value: Any) -> RuleError:
        return RuleError(f"bad value {value!r} for option {self.name!r}: allowed values are {self.allowed}")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (for clients that build a rule form): name, kind as
        ``type``, the allowed values, the classic default and the help in words."""
        data: dict[str, Any] = {"name": self.name, "type": self.kind.value}
        if self.kind in (OptionKind.CHOICE, OptionKind.MATCH_END):
            data["values"] = list(self.choices)
        if self.kind in (OptionKind.NUMBER, OptionKind.MATCH_END):
            data["min"] = self.low
        if self.high is not None:
            data["max"] = self.high
        if self.kind is OptionKind.MATCH_END:
            data["max"] = {kind.value: high for kind, high in MATCH_END_MAX.items()}
        data["default"] = RuleSet().to_dict()[self.name]
        data["help"] = self.help
        return data


def _parse_row_size(value: Any, option: Option) -> str | int:
    if value in ROW_SIZE_NAMES:
        return str(value)
    number = _as_int(value, option)
    if number not in option.choices:
        raise option.error(value)
    return number


def _parse_bool(value: Any, option: Option) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "on", "off", "1", "0"):
        return value.lower() in ("true", "yes", "on", "1")
    raise option.error(value)


def _as_int(value: Any, option: Option) -> int:
    if isinstance(value, bool):
        raise option.error(value)
    if isinstance(value, int):
        return value
    number = whole_number(value.strip()) if isinstance(value, str) else None
    if number is None:
        raise option.error(value)
    return number


def _parse_penalty(value: Any, option: Option) -> int:
    number = _as_int(value, option)
    if number < option.low or (option.high is not None and number > option.high):
        raise option.error(value)
    return number


def _parse_enum(kind: type[enum.StrEnum]) -> Any:
    def parse(value: Any, option: Option) -> enum.StrEnum:
        try:
            return kind(value)
        except ValueError:
            raise option.error(value) from None

    return parse


def _parse_match_end(value: Any, option: Option) -> MatchEnd:
    try:
        return MatchEnd.parse(str(value) if isinstance(value, MatchEnd) else value)
    except RuleError:
        raise option.error(value) from None


_PARSERS: dict[str, Any] = {
    "row_size": _parse_row_size,
    "short_turn": _parse_enum(ShortTurn),
    "recycle_shuffle": _parse_bool,
    "stack_penalty": _parse_penalty,
    "floor_at_zero": _parse_bool,
    "scoring": _parse_enum(Scoring),
    "match_end": _parse_match_end,
    "expert": _parse_bool,
}

OPTIONS: dict[str, Option] = {
    option.name: option
    for option in (
        Option(
            "row_size",
            "'classic', 'by_boxes' or a number 1-5",
            "cards in each row",
            OptionKind.CHOICE,
            (*ROW_SIZE_NAMES, 1, 2, 3, 4, 5),
        ),
        Option(
            "short_turn",
            "'turn_remaining' or 'recycle'",
            "turning with fewer than 3 cards in the hand",
            OptionKind.CHOICE,
            tuple(kind.value for kind in ShortTurn),
        ),
        Option(
            "recycle_shuffle",
            "true or false",
            "shuffle the discard pile when it becomes the hand again",
            OptionKind.FLAG,
        ),
        Option(
            "stack_penalty",
            "a number 0-10",
            "points lost per card left in the Ligretto stack",
            OptionKind.NUMBER,
            low=0,
            high=10,
        ),
        Option("floor_at_zero", "true or false", "a round score never goes below 0", OptionKind.FLAG),
        Option(
            "scoring",
            "'cards' or 'first_out'",
            "how a round is scored",
            OptionKind.CHOICE,
            tuple(kind.value for kind in Scoring),
        ),
        Option(
            "match_end",
            MATCH_END_ALLOWED,
            "when a match ends",
            OptionKind.MATCH_END,
            (MatchEndKind.ROUNDS.value, MatchEndKind.TARGET.value),
            low=1,
        ),
        Option("expert", "true or false", "the expert variant: rows become descending columns", OptionKind.FLAG),
    )
}
"""Every rule option, in RULES.md order."""

PRESETS: dict[str, dict[str, Any]] = {
    "classic": {},
    "seed-es": {"short_turn": "recycle", "recycle_shuffle": False, "floor_at_zero": True},
    "seed-pt": {"row_size": "by_boxes", "match_end": "target:100"},
    "seed-it": {"row_size": "by_boxes", "match_end": "target:100"},
    "seed-fr": {"row_size": 5},
    "seed-fi": {},
    "expert": {"expert": True},
}
"""The presets of RULES.md §8 as option overrides of ``classic``."""


def written(options: Mapping[str, Any]) -> str:
    """Options as a command line writes them (``--set name=text``), for a heading or a
    list: ``short_turn=recycle, expert=true`` (never Python's ``True``)."""
    return ", ".join(f"{name}={OPTIONS[name].text(value)}" for name, value in options.items())


def _check(rules: RuleSet) -> None:
    """Validate a directly constructed rule set: a bad value gets the same error as in
    :meth:`RuleSet.from_dict`; a good value written as text (``scoring="first_out"``) is
    refused saying how to write it, since the constructor takes typed values only."""
    for field in dataclasses.fields(rules):
        value = getattr(rules, field.name)
        option = OPTIONS[field.name]
        parsed = option.parse(value)
        if parsed != value or type(parsed) is not type(value):
            raise RuleError(
                f"option {option.name!r} of RuleSet() takes typed values: write {_typed(parsed)}, not {value!r}, "
                "or give values as text to RuleSet.from_dict() or replace()"
            )


def _typed(value: Any) -> str:
    """How a parsed option value is written in Python: ``Scoring.FIRST_OUT``, ``True``, ``3``."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, MatchEnd):
        return f"MatchEnd.parse({str(value)!r})"
    return repr(value)
