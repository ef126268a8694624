"""The client's picture of a table, kept up to date from protocol messages (docs/protocol.md).

Plain Python: no Textual, no sockets, no clock (the time a message arrived is passed
in).  ``receive`` applies one server message: to the client's
:class:`~ligretto.client.session.Session` (seat, token, phase, the round's mirror, the acts
in flight and their answers), then to what the screen shows of it (who sits where, the
score sheet, the notice); the intent methods (``play``, ``turn``, ``vote``, ...) turn
what the person asked for into the message to send (an ``act`` by the session), or into
a notice when there is nothing to send.  The same model serves local and online play.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from ligretto.client.clocksync import ClockSync
from ligretto.client.mirror import Area, Mirror, wire_pile
from ligretto.client.session import ActId, InFlight, Session
from ligretto.protocol import Phase, ProtocolError
from ligretto.terminal import notices
from ligretto.terminal.faces import label
from ligretto.terminal.sheet import RoundResult, SheetRound, round_result, sheet_round

Message = dict[str, Any]

__all__ = ["Notice", "Person", "Phase", "TableModel", "describe"]


@dataclass(slots=True)
class Person:
    """Who sits at a seat (a ``table`` message's ``seats[]`` entry)."""

    seat: int
    name: str
    bot: str | None
    connected: bool
    stand_in: bool
    ready: bool


class Notice(enum.StrEnum):
    """What kind of line the status bar shows."""

    INFO = "info"
    REFUSED = "refused"
    ERROR = "error"


@dataclass(slots=True)
class TableModel:
    """Everything the client knows about its table, from the messages it received."""

    session: Session = field(default_factory=Session)
    """The client's session at the table (the transport's: its ``hello`` comes from it),
    fed every server message here."""
    people: list[Person | None] = field(default_factory=list)
    start_at: float | None = None
    ready_by: float | None = None
    """On the score sheet, once someone is ready: when the next round is dealt anyway (server time)."""
    sheet: list[SheetRound] = field(default_factory=list)
    winners: tuple[int, ...] | None = None
    result: RoundResult | None = None
    notice: str = ""
    notice_kind: Notice = Notice.INFO
    arbitration: str | None = None
    """How the table judges races (``fair`` or ``arrival``; ``None``: not said yet)."""
    window_ms: int | None = None
    clock: ClockSync = field(default_factory=ClockSync)
    """The clock sync from pongs; the transport stamps what it sends with it."""
    refusals: int = 0
    site: str | None = None
    """The server's page address (``http://127.0.0.1:8000``), for links to its pages;
    ``None`` at a table without one (local play)."""

    # --- the session's state ----------------------------------------------------------

    @property
    def seat(self) -> int | None:
        return self.session.seat

    @property
    def token(self) -> str | None:
        return self.session.token

    @property
    def code(self) -> str:
        return self.session.code

    @property
    def phase(self) -> Phase | None:
        """The table's phase (``None``: connecting, no ``table`` message yet)."""
        return self.session.phase

    @phase.setter
    def phase(self, phase: Phase | None) -> None:
        self.session.phase = phase

    @property
    def host(self) -> int | None:
        return self.session.host

    @property
    def rules(self) -> dict[str, Any]:
        """The table's rule set as its ``table`` message wrote it (empty before one)."""
        return {} if self.session.table is None else self.session.table.rules

    @property
    def round_number(self) -> int:
        """The table's current round (before any ``table`` message: the snapshot's)."""
        return self.session.round if self.session.table is None else self.session.table.round

    @property
    def view(self) -> Mirror | None:
        """The round as this seat sees it (the session's mirror)."""
        return self.session.mirror

    @property
    def pending(self) -> dict[ActId, InFlight]:
        """The acts in flight, by id."""
        return self.session.pending

    # --- reading ----------------------------------------------------------------------

    @property
    def me(self) -> Area | None:
        """The viewer's own area, if seated in the current round."""
        if self.view is None or self.seat is None or not 0 <= self.seat < len(self.view.areas):
            return None
        return self.view.areas[self.seat]

    @property
    def clock_offset(self) -> float:
        """Server time minus local time, from the ping with the shortest recent round trip."""
        return self.clock.offset

    @property
    def best_round_trip(self) -> float | None:
        best = self.clock.best
        return None if best is None else best.seconds

    @property
    def judging(self) -> str | None:
        """How the table judges races, in words (``fair, window 200 ms``, ``by arrival``)."""
        return notices.judging(self.arbitration, self.window_ms)

    @property
    def expert(self) -> bool:
        return self.session.rules.expert

    @property
    def is_host(self) -> bool:
        return self.seat is not None and self.seat == self.host

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        person = self.people[seat] if 0 <= seat < len(self.people) else None
        return person.name if person is not None else f"Seat {seat + 1}"

    def totals(self) -> tuple[int, ...]:
        """The match totals so far (zeros before the first round is scored)."""
        if self.sheet:
            return self.sheet[-1].totals
        return tuple(0 for _ in self.people)

    def countdown(self, now: float) -> float | None:
        """Seconds until play starts (``None`` outside the countdown); ``now`` is the local clock."""
        if self.phase is not Phase.COUNTDOWN or self.start_at is None:
            return None
        return max(0.0, self.start_at - (now + self.clock_offset))

    def ready_left(self, now: float) -> float | None:
        """Seconds until the next round is dealt whoever is ready, or the rematch starts
        with whoever wants one (``None``: nobody waits for it yet); ``now`` is the local clock."""
        if self.phase not in (Phase.SCORING, Phase.OVER) or self.ready_by is None:
            return None
        return max(0.0, self.ready_by - (now + self.clock_offset))

    @property
    def is_ready(self) -> bool:
        """This seat has said it is ready for the next round."""
        me = self.people[self.seat] if self.seat is not None and self.seat < len(self.people) else None
        return me is not None and me.ready

    @property
    def replay(self) -> str | None:
        """The share token of the round just scored: its ``round_over``'s, else (the
        client came back on the score sheet) the ``table`` message's; ``None`` while a
        round is played, or at a table that keeps no replays."""
        over = self.session.round_over
        if over is not None and over.replay is not None:
            return over.replay
        return None if self.session.table is None else self.session.table.replay

    @property
    def tournament(self) -> str | None:
        """At a tournament's stage table: which tournament and stage, in words (``None``:
        any other table)."""
        table = self.session.table
        if table is None or table.tournament is None:
            return None
        tag = table.tournament
        return f"tournament {tag.name}, stage {tag.stage} of {tag.stages}"

    @property
    def tournament_link(self) -> str | None:
        """The browser's page of the stage table's tournament (``SITE/#/tournament/ID``), or ``None``."""
        table = self.session.table
        if table is None or table.tournament is None or self.site is None:
            return None
        return f"{self.site}/#/tournament/{quote(table.tournament.id, safe='')}"

    @property
    def replay_link(self) -> str | None:
        """The browser's page of the round just scored (``SITE/#/replay/TOKEN``, as the
        browser's score sheet links it), or ``None``."""
        token = self.replay
        if token is None or self.site is None:
            return None
        return f"{self.site}/#/replay/{quote(token, safe='')}"

    @property
    def banner(self) -> str | None:
        """How the round ended, in words (``None`` while it is on)."""
        if self.view is None or self.view.ending is None:
            return None
        if self.view.ending == "stop":
            who = self.view.stopped_by
            if who == self.seat:
                return "LIGRETTO STOP! You emptied your Ligretto stack"
            return f"LIGRETTO STOP! {self.name(who)} emptied their Ligretto stack"
        if self.view.ending == "stalemate_vote":
            return "Stalemate: everyone agreed to end the round"
        return "Stalemate: no card can be played any more"

    # --- receiving --------------------------------------------------------------------

    def receive(self, message: Message, now: float = 0.0) -> None:
        """Apply one server message; ``now`` is the local clock when it arrived."""
        kind = message.get("type")
        if kind == "connection":  # from the client's own transport, never from a server
            fine = message["state"] in ("connected", "watching")
            self.say(message["message"], Notice.INFO if fine else Notice.ERROR)
            return
        try:
            self.session.receive(message)
        except ProtocolError as error:
            self.say(f"the server sent a message this client cannot read ({error.message})", Notice.ERROR)
            return
        if kind == "table":
            self._table(message)
        elif kind == "snapshot":
            self.result = None
        elif kind == "go":
            self.say("Ligretto! Play!")
        elif kind == "ack":
            self._ack(message)
        elif kind == "round_over":
            self._round_over(message)
        elif kind == "error":
            self.say(message["message"], Notice.ERROR)
        elif kind == "reaction":
            # An emote never covers a refusal or an error the person has still to read.
            if self.notice_kind is Notice.INFO:
                who = "You" if message["seat"] == self.seat else self.name(message["seat"])
                self.say(f"{who} reacted {message['emote']}")
        elif kind == "race":
            self._race(message)
        elif kind == "speed":  # to the host only
            self.say(notices.speed(message["seat"], message["why"], message["fast"], name=self.name), Notice.ERROR)
        elif kind == "pong":
            self.clock.ponged(message, now)

    def _table(self, message: Message) -> None:
        self.people = [
            None
            if p is None
            else Person(
                int(p["seat"]), p["name"], p["bot"], bool(p["connected"]), bool(p["stand_in"]), bool(p["ready"])
            )
            for p in message["seats"]
        ]
        self.start_at = message["start_at"]
        self.ready_by = message["ready_by"]
        sheet = message["sheet"]
        self.sheet = [] if sheet is None else [sheet_round(row) for row in sheet["rounds"]]
        winners = message["winners"]
        self.winners = None if winners is None else tuple(winners)
        self.arbitration, self.window_ms = message["arbitration"], message["window_ms"]

    def _ack(self, message: Message) -> None:
        answer = self.session.answered
        what = "that" if answer is None else describe(answer.action)
        if message["applied"]:
            if self.notice_kind is not Notice.INFO:
                self.say("")
            return
        self.refusals += 1
        faster = message.get("by")
        if message["reason"] == "does_not_fit" or (faster is not None and message["reason"] == "pile_complete"):
            beaten = notices.beaten(faster, message.get("by_ms"), seat=self.seat, name=self.name)
            self.say(f"{beaten} {what} no longer fits: the card stays where it was", Notice.REFUSED)
        else:
            self.say(f"{what} refused: {message['message']}", Notice.REFUSED)

    def _race(self, message: Message) -> None:
        """Someone won a race for a pile: a line for everyone but its loser (whose ack
        said it), never over a refusal or an error still to be read."""
        if message["round"] != self.round_number or self.notice_kind is not Notice.INFO:
            return
        winner, loser = message["winner"], message["loser"]
        line = notices.race(winner, loser, message["pile"], message.get("ms"), seat=self.seat, name=self.name)
        if line is not None:
            self.say(line)

    def _round_over(self, message: Message) -> None:
        self.result = round_result(message)
        if self.notice_kind is Notice.INFO:
            self.say("")

    def say(self, text: str, kind: Notice = Notice.INFO) -> None:
        self.notice, self.notice_kind = text, kind

    # --- intents: what the person asked for, as a message to send ------------------------

    def _playing(self) -> Area | None:
        """The own area if an action can be sent now; else says why not."""
        area = self.me
        if area is None:
            self.say("you are not seated in a round", Notice.ERROR)
            return None
        if self.phase is Phase.COUNTDOWN:
            self.say("wait for the countdown to end", Notice.ERROR)
            return None
        if self.phase is not Phase.PLAYING or (self.view is not None and self.view.ending is not None):
            self.say("no round is being played", Notice.ERROR)
            return None
        return area

    def play(self, source: str, position: int = 0) -> Message | None:
        """Play the card at ``source`` (row position, stack top, discard top) to a pile it fits."""
        area = self._playing()
        if area is None or self.view is None:
            return None
        card = area.top(source, position)
        if card is None:
            place = f"row position {position + 1}" if source == "row" else f"your {source}"
            self.say(f"there is no card at {place}", Notice.ERROR)
            return None
        pile = self.view.target_pile(card)
        if pile is None:
            self.say(f"{label(card)} fits no pile", Notice.ERROR)
            return None
        action = {"kind": "play", "source": source, "position": position, "pile": wire_pile(pile), "card": card}
        self.say(f"playing {describe(action)}")
        return self.session.act(action)

    def turn(self) -> Message | None:
        area = self._playing()
        if area is None:
            return None
        if area.hand_size + area.discard_size == 0:
            self.say("the hand and the discard pile are empty", Notice.ERROR)
            return None
        return self.session.act({"kind": "turn"})

    def vote(self) -> Message | None:
        """Vote for a stalemate, or withdraw the vote already cast."""
        area = self._playing()
        if area is None:
            return None
        if area.voted:
            self.say("vote withdrawn")
            return self.session.act({"kind": "withdraw"})
        self.say("you voted to end the round as a stalemate (v again withdraws)")
        return self.session.act({"kind": "vote"})

    def placeable(self, source: str) -> str | None:
        """Expert variant: the card a placement from ``source`` would move, or ``None`` (and why)."""
        area = self._playing()
        if area is None:
            return None
        if not self.expert:
            self.say("placing cards on the row is only allowed in the expert variant", Notice.ERROR)
            return None
        card = area.top(source)
        if card is None:
            self.say(f"your {source} is empty", Notice.ERROR)
        return card

    def place(self, column: int, source: str) -> Message | None:
        """Expert variant: the ``source`` top onto a row column (one lower, another colour)."""
        card = self.placeable(source)
        area = self.me
        if card is None or area is None:
            return None
        target = area.exposed(column)
        if target is None:
            self.say(f"there is no row column {column + 1}", Notice.ERROR)
            return None
        if not Mirror.goes_on(card, area.row[column]):
            self.say(f"{label(card)} cannot go on {label(target)}: only one lower of another colour", Notice.ERROR)
            return None
        action = {"kind": "place", "source": source, "column": column, "card": card}
        self.say(f"placing {describe(action)}")
        return self.session.act(action)

    def ready(self) -> Message | None:
        """After a round: ready for the next one; the host, once ready, deals it now.
        After the match: wanting a rematch; the host, once wanting one, starts it now."""
        if self.phase is Phase.SCORING and self.seat is not None:
            if self.is_ready and self.is_host:
                self.say("starting the next round")
                return {"type": "next_round"}
            self.say("ready: waiting for the others")
            return {"type": "ready"}
        if self.phase is Phase.OVER and self.seat is not None and not self.is_ready:
            self.say("rematch: waiting for the others")
            return {"type": "ready"}
        if self.phase in (Phase.LOBBY, Phase.OVER):
            return self.start()
        return None

    def start(self) -> Message | None:
        if not self.is_host:
            self.say("waiting for the host to start", Notice.INFO)
            return None
        return {"type": "start"}

    def add_bot(self, spec: str) -> Message | None:
        if not self.is_host or self.phase is not Phase.LOBBY:
            self.say("only the host may add bots, in the lobby", Notice.ERROR)
            return None
        strategy, _, level = spec.partition(":")
        return {"type": "add_bot", "strategy": strategy, "level": level or "skilled"}


_SAID = {"turn": "turning the hand", "vote": "the stalemate vote", "withdraw": "withdrawing the vote"}


def describe(action: Message) -> str:
    """What an act's ``action`` asks for, in words (``r5 to pile 2``, ``turning the hand``)."""
    kind = str(action["kind"])
    if kind not in ("play", "place"):
        return _SAID.get(kind, kind)
    card = "a card" if action.get("card") is None else label(action["card"])
    if kind == "place":
        return f"{card} onto column {action['column'] + 1}"
    return f"{card} to a new pile" if action["pile"] is None else f"{card} to pile {action['pile'] + 1}"
