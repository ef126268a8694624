"""Inhuman speed caught: a seat whose plays come faster or more regularly than a person's.

A card play is possible from a moment on: the later of the center pile it goes on
reaching the card's number less one (a 1: no pile needed) and the card being shown in
the seat's own area (dealt face up, a row column's new top, a new Ligretto stack top, the
hand turned onto the discard).  The *reaction* of a play is the time from that moment,
as the seat saw it, to the play (:class:`Reactions`).  With the seat at the table (the
simulator without a network) that is the play's time less the change's; over a network
the server counts each change from when it sent it and takes the seat's measured round
trip off the play's arrival (docs/fairness.md, "Inhuman speed").

:class:`Tempo` watches one seat's reactions and flags it (:class:`Flag`) when, of its
last :attr:`Rule.window` plays, :attr:`Rule.below` or more came faster than the human
floor (:attr:`Rule.floor_s`), or its last :attr:`Rule.regular` reactions vary less than
any person's (their coefficient of variation under :attr:`Rule.cv`).  The constants and
the figures behind them are in docs/fairness.md.  Pure: no clock, no I/O; the same
reactions always give the same flag.
"""

from __future__ import annotations

import enum
import math
from array import array
from dataclasses import dataclass, field

from ligretto.engine.actions import Play, Source
from ligretto.engine.area import Area

__all__ = ["RULE", "Flag", "Reactions", "Rule", "TableTempo", "Tempo", "Why", "face_played", "shown_faces"]


class Why(enum.Enum):
    """Why a seat was flagged."""

    FAST = "fast"
    """Repeatedly faster than the human floor."""
    REGULAR = "regular"
    """Reactions more regular than any person's."""


@dataclass(frozen=True, slots=True)
class Rule:
    """When a seat's reactions are not a person's (docs/fairness.md, "Inhuman speed").

    A simple visual reaction takes people 180-280 ms (a light and a key, no choice); a
    card play adds choosing the card and the pile (Hick-Hyman) and moving it (Fitts), so
    even the fastest players need well over 300 ms a play.  150 ms is below any of it."""

    floor_s: float = 0.150
    """The human floor: no person reacts to a change with a card play faster."""
    window: int = 12
    """The last plays counted for the floor."""
    below: int = 3
    """Plays under the floor, of the last ``window``, that flag the seat (one or two can be
    a lucky anticipation or a network hiccup the round trip did not show)."""
    regular: int = 16
    """The last reactions whose spread is judged."""
    cv: float = 0.08
    """A coefficient of variation (standard deviation / mean) under which ``regular``
    reactions are a machine's: people's vary by 30 % and more."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.floor_s) and self.floor_s >= 0):
            raise ValueError(f"the floor must be seconds, 0 or more, not {self.floor_s}")
        if not 1 <= self.below <= self.window:
            raise ValueError(f"below must be 1 to window ({self.window}), not {self.below}")
        if self.regular < 2:
            raise ValueError(f"regular must be 2 or more, not {self.regular}")
        if not (math.isfinite(self.cv) and self.cv >= 0):
            raise ValueError(f"cv must be 0 or more, not {self.cv}")


RULE = Rule()
"""The rule the server and the simulator use."""


@dataclass(frozen=True, slots=True)
class Flag:
    """A seat flagged: why, after how many plays, and the evidence (seconds / ratio)."""

    why: Why
    plays: int
    """The seat's plays counted when it was flagged."""
    fast: int
    """Of the last ``window`` plays, how many were under the floor."""
    median_s: float
    """The median of the last ``window`` reactions."""
    cv: float
    """The coefficient of variation of the last ``regular`` reactions (0 if fewer)."""

    def to_dict(self) -> dict[str, object]:
        return {
            "why": self.why.value,
            "plays": self.plays,
            "fast": self.fast,
            "median_ms": round(self.median_s * 1000),
            "cv": round(self.cv, 3),
        }


@dataclass(slots=True)
class Tempo:
    """One seat's reactions, judged by ``rule``: :meth:`add` each one; once flagged the
    seat stays flagged for the round (:attr:`flag`)."""

    rule: Rule = RULE
    plays: int = 0
    flag: Flag | None = None
    _recent: array[float] = field(default_factory=lambda: array("d"))
    """The last reactions, at most as many as the rule looks at (plain doubles: a deque's
    first block and a float object each were 0.9 KB a seat at a server's table, issue 31)."""

    def add(self, reaction_s: float) -> Flag | None:
        """Count one play's reaction (seconds; negative counts as 0); the flag if this one
        flags the seat (only the first time)."""
        rule = self.rule
        reaction_s = max(0.0, reaction_s) if math.isfinite(reaction_s) else 0.0
        recent = self._recent
        recent.append(reaction_s)
        keep = max(rule.window, rule.regular)
        if len(recent) > keep:
            del recent[0]
        self.plays += 1
        if self.flag is not None:
            return None
        last = recent[-rule.window :]
        floor_s = rule.floor_s
        fast = 0
        for reaction in last:
            if reaction < floor_s:
                fast += 1
        cv = _cv(recent[-rule.regular :]) if len(recent) >= rule.regular else math.inf
        why = Why.FAST if fast >= rule.below else Why.REGULAR if cv < rule.cv else None
        if why is None:
            return None
        median = sorted(last)[len(last) // 2]
        self.flag = Flag(why, self.plays, fast, median, 0.0 if math.isinf(cv) else cv)
        return self.flag


def _cv(values: array[float]) -> float:
    """Standard deviation over mean (population); 0 for values all 0."""
    mean = math.fsum(values) / len(values)
    if mean <= 0:
        return 0.0
    variance = math.fsum([(v - mean) * (v - mean) for v in values]) / len(values)
    return math.sqrt(variance) / mean


def shown_faces(area: Area) -> list[int]:
    """The faces a seat can play now from its area: its row's column tops, its Ligretto
    stack's top and its discard's top (what it sees face up and may reach for)."""
    faces = [column[-1] for column in area.row if column]
    if area.stack:
        faces.append(area.stack[-1])
    if area.discard:
        faces.append(area.discard[-1])
    return faces


def face_played(area: Area, play: Play) -> int | None:
    """The face ``play`` takes from ``area`` (before it is applied; ``None``: none there)."""
    if play.source is Source.ROW:
        column = area.row[play.position] if 0 <= play.position < len(area.row) else []
        return column[-1] if column else None
    cards = area.stack if play.source is Source.STACK else area.discard
    return cards[-1] if cards else None


@dataclass(slots=True)
class Reactions:
    """When each change a play could answer was shown, to give each play its reaction.

    ``shown(seat, faces, at)``: the faces a seat can play were shown to it at ``at`` (a
    face already shown keeps its time); ``pile_changed(pile, at)``: a card went on
    ``pile`` (or started it), shown at ``at``.  :meth:`reaction` is the time from the later
    of the two changes that made a play possible -- its card shown in the seat's area,
    its pile reaching the number below -- to the play."""

    start: float = 0.0
    _piles: dict[int, float] = field(default_factory=dict)
    _shown: dict[int, dict[int, float]] = field(default_factory=dict)

    def pile_changed(self, pile: int, at: float) -> None:
        self._piles[pile] = at

    def shown(self, seat: int, faces: list[int], at: float) -> None:
        before = self._shown.get(seat, {})
        self._shown[seat] = {face: before.get(face, at) for face in faces}

    def reaction(self, seat: int, face: int | None, pile: int | None, at: float, round_trip: float = 0.0) -> float:
        """The reaction of ``seat``'s play of ``face`` for ``pile`` (``None``: a new pile)
        made at ``at``: from the later of the card's showing and the pile's change, whose
        news took ``round_trip`` to go and the play to come back (a face or pile never
        seen: the round's start)."""
        shown = self.start if face is None else self._shown.get(seat, {}).get(face, self.start)
        changed = self.start if pile is None else self._piles.get(pile, self.start)
        return at - round_trip - max(shown, changed, self.start)


@dataclass(slots=True)
class TableTempo:
    """A round's watch on some seats (``seats``): :meth:`played` gives a play its reaction
    and judges it, :meth:`took_effect` keeps the changes an applied action made (every
    seat's: others' plays change the piles)."""

    seats: frozenset[int]
    rule: Rule = RULE
    start: float = 0.0
    reactions: Reactions = field(init=False)
    tempos: dict[int, Tempo] = field(init=False)

    def __post_init__(self) -> None:
        self.reactions = Reactions(self.start)
        self.tempos = {seat: Tempo(self.rule) for seat in self.seats}

    def dealt(self, areas: list[Area]) -> None:
        """The round's areas as dealt, shown at its start."""
        for seat in self.seats:
            self.reactions.shown(seat, shown_faces(areas[seat]), self.start)

    def played(self, seat: int, face: int | None, pile: int | None, at: float, round_trip: float = 0.0) -> Flag | None:
        """An applied play of ``face`` (:func:`face_played`, read before it was applied) for
        ``pile``, made at ``at``: the flag if it flags the seat now."""
        tempo = self.tempos.get(seat)
        if tempo is None:
            return None
        return tempo.add(self.reactions.reaction(seat, face, pile, at, round_trip))

    def took_effect(self, seat: int, area: Area, pile: int | None, shown_at: float) -> None:
        """``seat``'s action took effect and was shown to everyone at ``shown_at``: its
        area is now ``area``; ``pile``: the pile it put a card on (``None``: none)."""
        if seat in self.tempos:
            self.reactions.shown(seat, shown_faces(area), shown_at)
        if pile is not None:
            self.reactions.pile_changed(pile, shown_at)

    @property
    def flags(self) -> dict[int, Flag]:
        """The seats flagged this round, and why."""
        return {seat: tempo.flag for seat, tempo in self.tempos.items() if tempo.flag is not None}
