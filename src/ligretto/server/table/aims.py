"""Live presence: each seat's aim (the face-up card it has selected and the pile it points
at), shown to the others only if it chose to (``share_aim``), at a bounded rate.

An aim is never an action: it changes no card, is not logged or stored, gives no priority
to the judge and claims no pile.  What it relays is public: the card a seat's row, Ligretto
stack top or discard pile top shows, never a hand card (the protocol has no way to name
one).  Relays of one seat are at least ``1 / AIMS_PER_S`` seconds apart: an aim that comes
sooner waits on the table's timers, and a newer one replaces it (latest wins), so at
most one per seat ever waits.  An aim is cleared for everyone when its card moves (the
seat's own action: ``moved``) or its seat stops sharing; every aim is forgotten when the
round ends or a new one is dealt (clients forget theirs at ``round_over`` and a new
snapshot, unasked).
"""

from __future__ import annotations

from dataclasses import dataclass

from ligretto import protocol
from ligretto.engine.state import Round
from ligretto.protocol import Phase
from ligretto.server.table import messages
from ligretto.server.table.clock import Timers
from ligretto.server.table.rounds import Rounds
from ligretto.server.table.seats import Seating, TableError

INTERVAL_S = 1.0 / protocol.AIMS_PER_S
"""The least time between two relays of one seat's aim."""


@dataclass(frozen=True, slots=True)
class Target:
    """An aim as the table checked it: the card at its place when it was made, and where
    it points (``source`` ``None``: nothing selected)."""

    source: str | None
    position: int
    card: str | None
    pile: int | str | None


CLEARED = Target(None, 0, None, None)


def card_at(game: Round, seat: int, source: str, position: int) -> str | None:
    """The face-up card at ``source`` (and row ``position``) of ``seat`` (``None``: none
    there): a row column's top, the Ligretto stack's top, the discard pile's top."""
    area = game.areas[seat]
    if source == "row":
        if not 0 <= position < len(area.row) or not area.row[position]:
            return None
        face = area.row[position][-1]
    else:
        cards = area.stack if source == "stack" else area.discard
        if not cards:
            return None
        face = cards[-1]
    return str(game.card(seat, face))


class Aims:
    """The seats' aims at one table (see the module's docstring)."""

    def __init__(self, seating: Seating, rounds: Rounds, timers: Timers) -> None:
        self.seating = seating
        self.rounds = rounds
        self.timers = timers
        self.shown: dict[int, Target] = {}
        """The last aim relayed of each seat that is not cleared."""
        self.waiting: dict[int, Target] = {}
        """The newest aim of a seat that came too soon, waiting for its turn."""
        self.sent_at: dict[int, float] = {}
        self._timers: dict[int, int] = {}

    def share(self, index: int | None, on: bool) -> None:
        """Seat ``index`` shows its aim from now on, or no longer (its aim cleared)."""
        seat = None if index is None else self.seating.seats[index]
        if index is None or seat is None:
            raise TableError("not_seated", "spectators have no aim to show")
        seat.shares_aim = on
        if not on:
            self.waiting.pop(index, None)
            self._cancel(index)
            if index in self.shown:
                self._relay(index, CLEARED)

    def aim(self, index: int | None, source: str | None, position: int, pile: int | str | None) -> None:
        """Seat ``index``'s new aim, checked, relayed now or when its turn comes."""
        if index is None:
            raise TableError("not_seated", "spectators have no aim to show")
        seat = self.seating.seats[index]
        if seat is None or not seat.shares_aim:
            raise TableError("not_sharing", "send share_aim with share true first: aims are shown only by choice")
        game = self.rounds.game
        if self.rounds.phase is not Phase.PLAYING or game is None:
            raise TableError("not_playing", "no round is being played")
        target = self._check(game, index, source, position, pile)
        if target is CLEARED and index not in self.shown:  # nothing to clear for the others
            self.waiting.pop(index, None)
            self._cancel(index)
            return
        wait = self.sent_at.get(index, -INTERVAL_S) + INTERVAL_S - self.seating.clock()
        if wait <= 0 and index not in self._timers:
            self._relay(index, target)
            return
        self.waiting[index] = target  # latest wins: the one it replaces is never sent
        if index not in self._timers:
            key = self.timers.later(wait, lambda: self._turn(index))
            if key is None:  # no timers (a table driven by hand, no event loop): at once
                self._turn(index)
            else:
                self._timers[index] = key

    def _check(self, game: Round, index: int, source: str | None, position: int, pile: int | str | None) -> Target:
        if source is None:
            if pile is not None:
                raise TableError("bad_aim", "an aim at a pile needs a card: give its source")
            return CLEARED
        card = card_at(game, index, source, position)
        if card is None:
            where = f"row position {position}" if source == "row" else f"your {source}"
            raise TableError("bad_aim", f"no card of yours shows at {where}")
        if isinstance(pile, int) and not pile < len(game.pile_seats):
            raise TableError("bad_aim", f"there is no center pile {pile} (there are {len(game.pile_seats)})")
        return Target(source, position if source == "row" else 0, card, pile)

    def _turn(self, index: int) -> None:
        """The waiting aim of ``index`` goes, if its card is still where it was."""
        self._timers.pop(index, None)
        target = self.waiting.pop(index, None)
        game = self.rounds.live_round()
        if target is None or game is None:
            return
        if target.source is not None and card_at(game, index, target.source, target.position) != target.card:
            return  # its card moved meanwhile (``moved`` cleared what was shown)
        self._relay(index, target)

    def _relay(self, index: int, target: Target) -> None:
        game = self.rounds.game
        if game is None:
            return
        if target.source is None:
            self.shown.pop(index, None)
        else:
            self.shown[index] = target
        self.sent_at[index] = self.seating.clock()
        message = messages.aimed(
            self.rounds.round_number,
            len(game.log) - 1,
            index,
            source=target.source,
            position=target.position,
            card=target.card,
            pile=target.pile,
        )
        self.seating.broadcast(message, but=index)

    def moved(self, index: int) -> None:
        """Seat ``index``'s action was applied: its aim is cleared if its card moved."""
        game = self.rounds.game
        shown = self.shown.get(index)
        if game is None or shown is None or shown.source is None:
            return
        if card_at(game, index, shown.source, shown.position) != shown.card:
            self.waiting.pop(index, None)
            self._cancel(index)
            self._relay(index, CLEARED)

    def forget(self) -> None:
        """The round ended or a new one is dealt: no aim is left (nothing is sent)."""
        for index in list(self._timers):
            self._cancel(index)
        self.shown.clear()
        self.waiting.clear()
        self.sent_at.clear()

    def _cancel(self, index: int) -> None:
        self.timers.cancel(self._timers.pop(index, None))
