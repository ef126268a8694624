"""Races for a pile: which plays can be contested, who won a race, and how plays are judged.

Two players often reach for the same pile.  The engine applies one action at a time, so
the authority that feeds it (the simulator, the server) decides who was first.  The rules
of that decision live here, pure, for every authority alike (docs/fairness.md):

- :func:`rivals` (and :func:`contestable`): the other seats that could beat a play to its
  pile right now (they show a face-up card that fits the same pile).  Only such a play is
  worth holding for rivals; every other action takes effect as it arrives.
- :func:`race_winner`: for a play refused because its pile's place was taken ("beaten to
  it"), the seat whose card took that place; :func:`same_time`: whether the two cards came
  close enough together (:data:`RACE_MS`) for people to call it a race, and
  :class:`Landings`, which keeps when each card of a round took its place to tell.
- :func:`judge`: when a play takes effect and the time it is ranked by, from its arrival,
  its sender's stamp, the authority's estimate of the sender's one-way delay and of its
  rivals'; :func:`behind`: a play never overtakes an earlier-ranked play for its pile.
  Times are plain numbers (seconds) passed in: the engine reads no clock.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

from ligretto.engine.actions import Action, Play, Source
from ligretto.engine.area import Area
from ligretto.engine.cards import NUMBERS, fits
from ligretto.engine.events import Reason, Refused, Result
from ligretto.engine.state import Round


class Arbitration(enum.StrEnum):
    """How an authority orders the plays of a race (a table setting, docs/fairness.md)."""

    ARRIVAL = "arrival"
    """Each action takes effect as it arrives."""
    FAIR = "fair"
    """Contestable plays are ranked by compensated time: when the player would have played
    at the table (its send time less its delay back); each is held, at most the window,
    while a rival's earlier-ranked play could still be on its way."""


DEFAULT_WINDOW_MS = 200
"""The longest a contestable play is held for rivals, by default: long enough to wait for
a rival 100 ms away (its round trip) while the play's sender is 0-10 ms away."""
MAX_WINDOW_MS = 250
"""The longest window a table may set (every contested play waits that long at most)."""
CAP_MS = 150
"""The most one-way delay credited to a connection, whatever it measures or claims: a
play is ranked at most twice this (its way up and the way down) before its arrival."""
RACE_MS = 250
"""A play refused because another card took its place on the pile was a *race* if the two
plays were ranked at most this far apart (when each player would have played at the table:
its compensated time, :func:`judge`; by arrival, its arrival): "at the same time" for the
people at the table.  A play that came later was simply too late: nobody is told of a race
(the simulator's statistics count every beaten play)."""


@dataclass(frozen=True, slots=True)
class Fairness:
    """A table's way of judging races: ``arbitration`` and, for ``fair``, the window a
    contestable play is held at most (milliseconds)."""

    arbitration: Arbitration = Arbitration.FAIR
    window_ms: int = DEFAULT_WINDOW_MS

    def __post_init__(self) -> None:
        if not isinstance(self.window_ms, int) or not 0 <= self.window_ms <= MAX_WINDOW_MS:
            raise ValueError(
                f"the window is a whole number of milliseconds from 0 to {MAX_WINDOW_MS}, not {self.window_ms}"
            )
        if not isinstance(self.arbitration, Arbitration):
            raise ValueError(f"arbitration is 'arrival' or 'fair', not {self.arbitration!r}")

    @classmethod
    def of(cls, arbitration: str | None = None, window_ms: int | None = None, base: Fairness | None = None) -> Fairness:
        """``base`` (the default's) with what is given changed; ``ValueError`` says what is wrong."""
        base = base or cls()
        if arbitration is not None and arbitration not in Arbitration.__members__.values():
            raise ValueError(f"arbitration is 'arrival' or 'fair', not {arbitration!r}")
        return cls(
            base.arbitration if arbitration is None else Arbitration(arbitration),
            base.window_ms if window_ms is None else window_ms,
        )

    @property
    def fair(self) -> bool:
        return self.arbitration is Arbitration.FAIR


BEATEN = frozenset({Reason.DOES_NOT_FIT, Reason.PILE_COMPLETE})
"""The refusals of a play whose place on its pile another card took first."""


def shows(area: Area, face: int) -> bool:
    """Whether ``face`` is face up in ``area``: an exposed row card, the stack top or the
    discard top (the cards a player can play; the hand is hidden)."""
    if area.stack and area.stack[-1] == face:
        return True
    if area.discard and area.discard[-1] == face:
        return True
    return any(column[-1] == face for column in area.row if column)


def _source_face(game: Round, play: Play) -> int | None:
    """The face at the play's source now, or ``None`` if there is no card there."""
    area = game.areas[play.player]
    if play.source is Source.ROW:
        if not 0 <= play.position < len(area.row):
            return None
        cards = area.row[play.position]
    elif play.source is Source.STACK:
        cards = area.stack
    else:
        cards = area.discard
    return cards[-1] if cards else None


def rivals(game: Round, action: Action) -> tuple[int, ...]:
    """If ``action`` is a play onto an existing pile that it fits now, the other seats that
    show a face-up card that fits the same pile (they could take its place first); else
    ``()``.

    Turning the hand, placing (expert), voting, starting a new pile with a 1, a play that
    would be refused anyway and a play onto a pile no other seat can serve have none."""
    if not isinstance(action, Play) or game.ending is not None:
        return ()
    play = action
    pile = play.pile
    if pile is None or not 0 <= play.player < game.players or not 0 <= pile < len(game.pile_seats):
        return ()
    top = len(game.pile_seats[pile])
    colour = game.pile_colours[pile]
    face = _source_face(game, play)
    if face is None or top == NUMBERS or not fits(face, colour, top):
        return ()
    if play.card is not None and (play.card.owner != play.player or play.card.face != face):
        return ()
    return tuple(seat for seat, area in enumerate(game.areas) if seat != play.player and shows(area, face))


def contestable(game: Round, action: Action) -> bool:
    """Whether a rival could take the place of ``action`` on its pile first (:func:`rivals`)."""
    return bool(rivals(game, action))


def race_lost(game: Round, action: Action, result: Result) -> tuple[int, int, int] | None:
    """For a play refused because another card took its place on the pile first,
    ``(pile, height, winner)``: the pile, the place (1-based: the loser's number) and the
    seat whose card took it; ``None`` for any other action or result.

    The pile's cards keep their seats (``Round.pile_seats``), so the card of the loser's
    colour and number on that pile names the winner.  Call it right after the refusal:
    a refused play changes nothing, so the loser's card is still at its source."""
    if not isinstance(result, Refused) or not isinstance(action, Play):
        return None
    play = action
    pile = play.pile
    if result.reason not in BEATEN or pile is None or not 0 <= pile < len(game.pile_seats):
        return None
    if not 0 <= play.player < game.players:
        return None
    face = _source_face(game, play)
    if face is None or face // NUMBERS != game.pile_colours[pile]:
        return None
    number = face % NUMBERS + 1
    seats = game.pile_seats[pile]
    if len(seats) < number:
        return None
    winner = seats[number - 1]
    return None if winner == play.player else (pile, number, winner)


def landed(game: Round, action: Action, piles_before: int) -> tuple[int, int] | None:
    """For a play the engine has just applied, the place its card took: ``(pile, height)``
    (height 1-based, the card's number); ``piles_before``: the piles before it (a 1 starts
    the next).  ``None`` for any other action."""
    if not isinstance(action, Play):
        return None
    pile = piles_before if action.pile is None else action.pile
    return pile, len(game.pile_seats[pile])


def _place_key(place: tuple[int, int]) -> int:
    """A place (pile, height: 1 to :data:`~ligretto.engine.cards.NUMBERS`) as one number."""
    pile, height = place
    return pile << 4 | height


@dataclass(slots=True)
class Landings:
    """When the card that took each place on a pile of one round was ranked (seconds on its
    authority's clock; ``None``: not known), so that a play refused for that place can be
    told a race or not (:func:`same_time`): the server's judge as plays take effect, and
    every replay of a stored round from the stored ranks, decide alike."""

    _at: dict[int, float | None] = field(default_factory=dict)
    """By place, as one number (:func:`_place_key`): a server's tables keep a round's
    landings, and a tuple for each was a quarter of them (issue 31)."""

    def took(self, place: tuple[int, int], rank: float | None) -> None:
        """A card ranked at ``rank`` took ``place`` (pile, height)."""
        self._at[_place_key(place)] = rank

    def ranked(self, place: tuple[int, int]) -> float | None:
        """When the card that took ``place`` was ranked (``None``: not known)."""
        return self._at.get(_place_key(place))

    def raced(self, place: tuple[int, int], rank: float | None) -> bool:
        """Whether a play ranked at ``rank`` and refused for ``place`` came at the same
        time as the card that took it."""
        return rank is not None and same_time(self._at.get(_place_key(place)), rank)

    def decided(
        self, game: Round, action: Action, result: Result, piles_before: int, rank: float | None
    ) -> tuple[int, int, int] | None:
        """The engine has just decided ``action`` (``result``; ``piles_before``: the piles
        before it), ranked at ``rank``: an applied play's card took its place
        (:func:`landed`); for a play refused because another card took its place at the
        same time, a race, ``(pile, height, winner)`` (:func:`race_lost`); ``None`` for
        anything else, a play that came later included."""
        if result.ok:
            place = landed(game, action, piles_before)
            if place is not None:
                self._at[_place_key(place)] = rank
            return None
        lost = race_lost(game, action, result)
        return lost if lost is not None and self.raced(lost[:2], rank) else None

    def clear(self) -> None:
        self._at.clear()


def race_winner(game: Round, action: Action, result: Result) -> int | None:
    """For a play refused because another card took its place on the pile first, the seat
    whose card took it (:func:`race_lost`); ``None`` for any other action or result."""
    lost = race_lost(game, action, result)
    return None if lost is None else lost[2]


def same_time(won: float | None, lost: float) -> bool:
    """Whether a play ranked at ``lost`` and refused because a card ranked at ``won`` took
    its place (seconds on one clock; ``None``: not known) was a race: at most
    :data:`RACE_MS` apart either way, counted in whole milliseconds (as the margin a loser is
    told, ``by_ms``) so that every authority and every replay of the stored ranks decides
    alike."""
    return won is not None and abs(round((lost - won) * 1000)) <= RACE_MS


def judge(
    arrival: float, stamp: float, estimate: float, *, rival: float | None, window: float, cap: float
) -> tuple[float, float]:
    """``(release, compensated)``: when a play takes effect, and the time it is ranked by.

    ``compensated`` is when the player would have played at the table: its ``stamp`` (its
    send time on the authority's clock, but never earlier than ``arrival`` minus its
    estimated one-way delay, nor later than ``arrival``) less that delay once more, for
    the way down (the player saw the table that much late).  The delay credited is
    ``min(estimate, cap)``: a stamp that lies gains nothing beyond what the authority
    measured, and nobody is ranked more than ``2 * cap`` before arrival.

    ``rival`` is, for a contested play, the largest estimated one-way delay of the seats
    that could contest it (``None``: not contested).  Any rival play ranked earlier arrives
    before ``compensated + 2 * min(rival, cap)`` (its own rank is at most that much before
    its arrival), so the play is held until then, but never longer than ``window`` after
    its arrival; a play nobody can contest takes effect at once, ``release == arrival``."""
    if window < 0 or cap < 0 or estimate < 0 or (rival is not None and rival < 0):
        raise ValueError(f"window, cap and delays must not be negative: {window}, {cap}, {estimate}, {rival}")
    credit = min(estimate, cap)
    compensated = min(max(stamp, arrival - credit), arrival) - credit
    if rival is None:
        return arrival, compensated
    release = min(compensated + 2 * min(rival, cap), arrival + window)
    return (release if release > arrival else arrival), compensated


def pile_of(action: Action) -> int | None:
    """The pile a play is for (``None``: a new pile, or not a play)."""
    return action.pile if isinstance(action, Play) else None


def behind(release: float, compensated: float, held: Iterable[tuple[float, float]]) -> float:
    """``release``, or later: a play for a pile never takes effect before a play for the
    same pile that is ranked no later (``held``: their ``(release, compensated)``), so
    that of the two the earlier-ranked goes first even when it is held longer."""
    for their_release, their_compensated in held:
        if their_compensated <= compensated and their_release > release:
            release = their_release
    return release
