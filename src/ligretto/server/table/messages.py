"""Every message a table sends, and what the lobby shows of it, in one place: the table's
values handed to the protocol, which turns them into its typed messages
(``ligretto.protocol``; what goes to every listener is encoded once, as a
:class:`~ligretto.protocol.Broadcast`).  Only public information goes in: a view made by
the engine for its viewer, events (public by construction), names, seats and the score
sheet; a seat's token goes only into the ``welcome`` of its owner.  Each is made from the
values it shows (the table gathers them from its parts), so this module imports none of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from ligretto import protocol
from ligretto.engine.events import Applied, Event, Refused
from ligretto.engine.match import Match
from ligretto.engine.races import Fairness
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import RoundScore
from ligretto.engine.state import Round
from ligretto.engine.tempo import Flag
from ligretto.engine.views import view
from ligretto.protocol import Phase


def summary(
    code: str, phase: Phase, seats: Sequence[protocol.SeatInfo | None], host: int | None, rules: RuleSet
) -> protocol.TableSummary:
    """What the public lobby list shows of a table."""
    return protocol.table_summary(code=code, phase=phase.value, seats=seats, host=host, rules=rules)


def details(summary: protocol.TableSummary, seats: Sequence[protocol.SeatInfo | None]) -> protocol.TableDetails:
    """The summary and who sits where (names and bots, as the ``table`` message shows
    them), for the invite page before joining."""
    return protocol.table_details(summary, seats)


def table_message(
    *,
    code: str,
    phase: Phase,
    seats: Sequence[protocol.SeatInfo | None],
    host: int | None,
    rules: RuleSet,
    public: bool,
    rated: bool,
    replays: str,
    grace_s: float,
    ready_s: float,
    fairness: Fairness,
    match: Match | None,
    matches_played: int,
    start_at: float | None,
    ready_by: float | None,
    replay_token: str | None,
    tournament: protocol.TableTournament | None = None,
) -> protocol.TableState:
    """Everything about the table that everyone may see: its seats, settings and phase,
    the match's round and score sheet (the winners once it is over), when the score sheet
    stops waiting for *Ready* (``ready_by``), and the share token of the round just scored
    (only in ``scoring`` and ``over``)."""
    over = phase is Phase.OVER
    return protocol.table_message(
        code=code,
        phase=phase.value,
        seats=seats,
        host=host,
        rules=rules,
        public=public,
        grace_s=grace_s,
        ready_s=ready_s,
        round=0 if match is None else match.round_number,
        start_at=start_at,
        ready_by=ready_by if phase in (Phase.SCORING, Phase.OVER) else None,
        sheet=None if match is None else match.sheet,
        winners=match.winners() if over and match else None,
        arbitration=fairness.arbitration.value,
        window_ms=fairness.window_ms,
        rated=rated,
        match=matches_played,
        replays=replays,
        replay=replay_token if over or phase is Phase.SCORING else None,
        tournament=tournament,
    )


def snapshot_message(match: Match | None, viewer: int | None) -> protocol.Snapshot | None:
    """The round as ``viewer`` (a seat, ``None``: a spectator) may see it; ``None``: no round."""
    if match is None or match.current is None:
        return None
    return protocol.snapshot_message(view(match.current, viewer), match.round_number)


def welcome(code: str, seat: int | None, token: str | None) -> protocol.Welcome:
    """To one connection: where it sits (``None``: watching) and its seat's token."""
    return protocol.welcome_message(code, seat, token)


def taken_over() -> protocol.Error:
    return protocol.error_message("replaced", "this seat was taken over by a new connection")


def removed() -> protocol.Error:
    return protocol.error_message("removed", "the host removed you from the table")


def no_rematch() -> protocol.Error:
    return protocol.error_message("no_rematch", "the rematch started without you: you watch it")


def closed() -> protocol.Error:
    return protocol.error_message("no_table", "this table was closed: nobody played at it for a long while")


def go(round_number: int) -> protocol.Go:
    return protocol.go_message(round_number)


def ack(
    client_id: str | int, result: Applied | Refused, faster: int | None = None, faster_ms: int | None = None
) -> protocol.Ack:
    """Applied, or refused with the engine's reason and, when a play lost a race, who won
    it (``by``) and by how many milliseconds of compensated time (``by_ms``)."""
    return protocol.ack_message(client_id, result, faster, faster_ms)


def race(round_number: int, pile: int, winner: int, loser: int, ms: int | None) -> protocol.Race:
    """A race decided, for everyone at the table: who won ``pile`` from whom, by how much."""
    return protocol.race_message(round_number, pile, winner, loser, ms)


def speed(round_number: int, seat: int, flag: Flag) -> protocol.Speed:
    """``seat`` flagged for inhuman speed, for the host."""
    return protocol.speed_message(round_number, seat, flag)


def events(round_number: int, seq: int, by: int, applied_events: Sequence[Event]) -> protocol.Events:
    """The events of the action number ``seq`` of the round, made by seat ``by``."""
    return protocol.events_message(round_number, seq, by, applied_events)


def round_over(
    match: Match, game: Round, scores: Sequence[RoundScore], replay: str | None = None
) -> protocol.RoundOver:
    """The round's ending, each seat's scores and the totals; the winners if the match is
    over; the round's share token (``replay``), which nothing sent before tells."""
    outcome = game.outcome
    assert outcome is not None
    return protocol.round_over_message(
        round=match.round_number,
        ending=outcome.ending.value,
        stopped_by=outcome.stopped_by,
        scores=scores,
        totals=match.sheet.totals(),
        match_over=match.over,
        winners=match.winners() if match.over else None,
        replay=replay,
    )


def reaction(seat: int, emote: str) -> protocol.Reaction:
    return protocol.reaction_message(seat, emote)


def aimed(
    round_number: int,
    seq: int,
    seat: int,
    *,
    source: str | None,
    position: int,
    card: str | None,
    pile: int | str | None,
) -> protocol.Aimed:
    """Seat ``seat``'s aim for the others: a face-up card of its own (``source`` ``None``:
    cleared) and where it points, in the round as it was after action ``seq``."""
    return protocol.aimed_message(
        round=round_number, seq=seq, seat=seat, source=source, position=position, card=card, pile=pile
    )
