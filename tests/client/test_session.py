"""The client session on its own (sans-I/O): server messages in, as a server writes them
(``protocol.wire`` of the protocol's own builders, over a round the engine plays), state
and the messages to send out."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from recorded_streams import as_seen_by, as_sent, record

from ligretto import protocol
from ligretto.client import Mirror, Session
from ligretto.engine.actions import Action, Turn
from ligretto.engine.events import Applied, Reason, Refused
from ligretto.engine.rules import RuleSet
from ligretto.engine.state import Round
from ligretto.engine.views import view
from ligretto.protocol import Phase, ProtocolError

CODE = "I7XLKMYrXIU"
TOKEN = "2sNin3JMBiJHJElkMP_leSPeDrx_J_PS"


class Seat:
    """A taken seat, as ``protocol.table_message`` reads it."""

    def __init__(self, name: str) -> None:
        self.name, self.bot, self.connected, self.stand_in, self.ready = name, None, True, False, False


def table(phase: str, *, round: int = 1, match: int = 1, host: int | None = 0, rules: RuleSet | None = None) -> str:
    return protocol.wire(
        protocol.table_message(
            code=CODE, phase=phase, seats=[Seat("Ann"), Seat("Bob")], host=host, rules=rules or RuleSet(),
            public=False, grace_s=60, ready_s=30, round=round, start_at=None, sheet=None, winners=None,
            arbitration="fair", window_ms=200, match=match,
        )
    )  # fmt: skip


def snapshot(game: Round, seat: int | None, round: int = 1) -> str:
    return protocol.wire(protocol.snapshot_message(view(game, seat), round))


def play(game: Round, action: Action, seq: int, round: int = 1) -> str:
    """The ``events`` of an applied action (it must apply)."""
    result = game.apply(action)
    assert isinstance(result, Applied), result
    return protocol.wire(protocol.events_message(round, seq, action.player, result.events))


def seated(seat: int = 0, game: Round | None = None) -> tuple[Session, Round]:
    """A session welcomed at ``seat`` of a two-seat table playing its first round."""
    game = game or Round.deal(RuleSet(), 2, 7)
    session = Session(CODE, name="Ann")
    session.connect()
    session.receive(protocol.wire(protocol.welcome_message(CODE, seat, TOKEN)))
    session.receive(table("countdown"))
    session.receive(snapshot(game, seat))
    session.receive(protocol.wire(protocol.go_message(1)))
    return session, game


def test_a_hello_takes_a_seat_by_name_and_the_welcome_gives_seat_and_token() -> None:
    session = Session(CODE, name="Ann")
    assert session.connect() == {"type": "hello", "v": 1, "code": CODE, "name": "Ann"}
    assert (session.connections, session.welcomed, session.seat, session.token) == (1, False, None, None)
    welcome = session.receive(protocol.wire(protocol.welcome_message(CODE, 1, TOKEN)))
    assert isinstance(welcome, protocol.Welcome)
    assert (session.welcomed, session.seat, session.token, session.refused) == (True, 1, TOKEN, None)
    session.receive(table("lobby", round=0, match=0, host=0))
    assert session.phase is Phase.LOBBY and session.host == 0 and session.match == 0 and session.round == 0
    assert session.mirror is None


def test_a_hello_watches_or_comes_back_with_its_token_and_sends_the_profile() -> None:
    assert Session(CODE, name="Ann", token=TOKEN).hello() == {"type": "hello", "v": 1, "code": CODE, "token": TOKEN}
    assert Session(CODE, name="Ann", token=TOKEN, watch=True).hello() == {
        "type": "hello", "v": 1, "code": CODE, "watch": True
    }  # fmt: skip
    assert Session(CODE, profile="secret").hello() == {"type": "hello", "v": 1, "code": CODE, "profile": "secret"}
    spectator = Session(CODE, watch=True)
    spectator.connect()
    spectator.receive(protocol.wire(protocol.welcome_message(CODE, None, None)))
    assert spectator.welcomed and spectator.seat is None and spectator.token is None


def test_the_table_message_gives_phase_rules_host_and_match_and_go_starts_the_play() -> None:
    session = Session(CODE, name="Ann")
    session.connect()
    assert session.phase is None and session.host is None and session.rules == RuleSet()
    session.receive(table("countdown", round=2, match=3, host=1, rules=RuleSet.preset("expert")))
    assert session.phase is Phase.COUNTDOWN and session.match == 3 and session.host == 1
    assert session.table is not None and session.table.round == 2 and session.round == 0, "no snapshot yet"
    assert session.rules == RuleSet.preset("expert")
    assert session.table is not None and session.table.code == CODE
    session.receive(protocol.wire(protocol.go_message(2)))
    assert session.phase is Phase.PLAYING


def test_snapshot_and_events_keep_the_mirror_with_the_last_seq() -> None:
    session, game = seated(0)
    assert session.mirror == Mirror.from_view(view(game, 0).to_dict())
    assert session.seq == -1 and session.phase is Phase.PLAYING
    session.receive(play(game, Turn(1), seq=4))
    session.receive(play(game, Turn(0), seq=9))
    assert session.mirror == Mirror.from_view(view(game, 0).to_dict())
    assert session.seq == 9
    assert session.problems == []


def test_events_of_another_round_change_nothing_and_strictly_are_a_problem() -> None:
    for strict in (False, True):
        game = Round.deal(RuleSet(), 2, 7)
        session = Session(CODE, strict=strict)
        session.receive(snapshot(game, 0, round=2))
        before = copy.deepcopy(session.mirror)
        session.receive(play(game, Turn(1), seq=0, round=1))
        assert session.mirror == before and session.seq == -1
        assert len(session.problems) == strict


def test_a_strict_session_notes_an_event_the_view_did_not_allow() -> None:
    game = Round.deal(RuleSet(), 2, 7)
    session = Session(CODE, strict=True)
    session.receive(snapshot(game, 0))
    events = json.loads(play(game, Turn(1), seq=0))
    events["events"][0]["count"] = 99  # more cards than the hand holds
    session.receive(json.dumps(events))
    assert any("turned more cards" in problem for problem in session.problems)
    session.receive(snapshot(game, 0))  # the next snapshot: the problems stay noted
    assert any("turned more cards" in problem for problem in session.problems)


def test_an_act_is_in_flight_until_its_ack() -> None:
    session, game = seated(0)
    act = session.act({"kind": "turn"})
    assert act == {"type": "act", "id": 1, "action": {"kind": "turn"}}
    assert list(session.pending) == [1] and session.pending[1].round == 1 and session.pending[1].action == act["action"]
    result = game.apply(Turn(0))
    assert isinstance(result, Applied)
    session.receive(protocol.wire(protocol.ack_message(1, result)))
    answer = session.answered
    assert answer is not None and answer.ident == 1 and answer.applied and answer.reason is None
    assert answer.action == {"kind": "turn"} and isinstance(answer.reply, protocol.Ack)
    assert session.pending == {}
    session.receive(protocol.wire(protocol.events_message(1, 0, 0, result.events)))
    assert session.answered is None, "the events answer nothing"
    assert session.mirror == Mirror.from_view(view(game, 0).to_dict())


def test_a_refused_act_and_an_act_answered_by_an_error_have_their_reason() -> None:
    session, _ = seated(0)
    play_act = session.act({"kind": "play", "source": "row", "position": 0, "pile": 3, "card": "r5"})
    vote = session.act({"kind": "vote"}, ident="mine-7")
    assert play_act["id"] == 1 and vote["id"] == "mine-7"
    lost = protocol.ack_message(1, Refused(Reason.DOES_NOT_FIT), by=1, by_ms=12)
    session.receive(protocol.wire(lost))
    answer = session.answered
    assert answer is not None and not answer.applied and answer.reason == "does_not_fit"
    assert isinstance(answer.reply, protocol.Ack) and answer.reply.by == 1 and answer.reply.by_ms == 12
    session.receive(protocol.wire(protocol.error_message("not_playing", "the round is over", "mine-7")))
    answer = session.answered
    assert answer is not None and answer.ident == "mine-7" and answer.reason == "not_playing" and not answer.applied
    assert session.pending == {}


def test_an_answer_to_no_act_in_flight_answers_nothing() -> None:
    session, _ = seated(0)
    session.receive(protocol.wire(protocol.ack_message(41, Refused(Reason.NO_SUCH_CARD))))
    assert session.answered is None
    session.receive(protocol.wire(protocol.error_message("invalid", "invalid message")))
    assert session.answered is None and session.refused is None, "after the welcome: no refused hello"


def test_races_lost_by_this_seat_are_kept_for_the_round() -> None:
    session, game = seated(1)
    session.receive(protocol.wire(protocol.race_message(1, 0, winner=0, loser=1, ms=12)))
    session.receive(protocol.wire(protocol.race_message(1, 2, winner=1, loser=0, ms=None)))
    session.receive(protocol.wire(protocol.race_message(1, 3, winner=0, loser=1, ms=None)))
    assert [(race.pile, race.ms) for race in session.races_lost] == [(0, 12), (3, None)]
    session.receive(snapshot(game, 1))  # the same round again (a reconnection): still its races
    assert len(session.races_lost) == 2
    session.receive(table("countdown", round=2))
    session.receive(snapshot(Round.deal(RuleSet(), 2, 8), 1, round=2))
    assert session.races_lost == []


def test_round_over_ends_the_round_and_the_next_deal_starts_another() -> None:
    session, game = seated(0)
    session.receive(play(game, Turn(1), seq=3))
    over = protocol.RoundOver(1, "stalemate_vote", None, [], [0, 0], False, None, "token")
    session.receive(protocol.wire(over))
    assert session.round_over == over
    assert session.mirror is not None
    assert (session.mirror.ending, session.mirror.stopped_by) == ("stalemate_vote", None)
    session.receive(table("scoring"))
    assert session.phase is Phase.SCORING and session.round_over == over
    session.receive(table("countdown", round=2))
    session.receive(snapshot(Round.deal(RuleSet(), 2, 8), 0, round=2))
    assert session.round_over is None and session.seq == -1 and session.round == 2
    assert session.mirror is not None and session.mirror.ending is None


def test_a_rematch_is_a_new_round_though_its_number_comes_again() -> None:
    session, game = seated(0)
    session.receive(play(game, Turn(1), seq=3))
    session.receive(table("countdown", round=1, match=2))
    session.receive(snapshot(Round.deal(RuleSet(), 2, 8), 0, round=1))
    assert session.match == 2 and session.seq == -1


def test_after_a_drop_the_hello_brings_the_seat_back_and_the_snapshot_resyncs() -> None:
    session, game = seated(0)
    session.receive(play(game, Turn(0), seq=0))
    session.act({"kind": "turn"})  # its answer never comes: the connection drops
    game.apply(Turn(1))  # what happened meanwhile
    game.apply(Turn(0))
    assert session.hello() == session.connect() == {"type": "hello", "v": 1, "code": CODE, "token": TOKEN}
    assert session.connections == 2 and not session.welcomed and session.pending == {}
    session.receive(protocol.wire(protocol.welcome_message(CODE, 0, TOKEN)))
    session.receive(table("playing"))
    session.receive(snapshot(game, 0))
    assert session.welcomed and session.seat == 0 and session.phase is Phase.PLAYING and session.joins == 2
    assert session.mirror == Mirror.from_view(view(game, 0).to_dict()), "the round as it is now"
    assert session.seq == 0, "the same round: the last seq seen stays"
    assert session.mirror is not None and session.mirror.areas[0].discard_size == 6


def test_a_welcome_without_a_hello_moves_the_seat_and_keeps_the_token() -> None:
    session, _ = seated(2, Round.deal(RuleSet(), 3, 7))
    session.receive(protocol.wire(protocol.welcome_message(CODE, 1, TOKEN)))
    assert session.seat == 1 and session.token == TOKEN and session.connections == session.joins == 1


def test_a_spent_token_is_forgotten_so_the_next_hello_asks_for_a_seat_by_name() -> None:
    session = Session(CODE, name="Ann", token=TOKEN)
    assert "token" in session.connect()
    session.receive(protocol.wire(protocol.error_message("bad_token", "no such seat")))
    assert session.refused is not None and session.refused.code == "bad_token" and not session.welcomed
    assert session.token is None
    assert session.hello() == {"type": "hello", "v": 1, "code": CODE, "name": "Ann"}, "again, on the same connection"
    session.receive(protocol.wire(protocol.error_message("full", "every seat is taken")))
    assert session.refused is not None and session.refused.code == "full" and session.token is None
    assert session.connections == 1
    session.connect()
    assert session.refused is None and session.connections == 2
    session.receive(protocol.wire(protocol.welcome_message(CODE, 0, TOKEN)))
    assert session.refused is None and session.welcomed and session.token == TOKEN
    assert (session.connections, session.joins) == (2, 1)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("not json", "malformed"),
        ('{"type": "welcome", "v": 1, "code": "C", "seat": 0}', "invalid"),  # no token
        ('{"type": "nonsense"}', "invalid"),
        ('{"type": "pong", "t": 1, "server_t": 2, "extra": 3}', "invalid"),
        ({"type": "go"}, "invalid"),
        ({"type": "hello", "v": 1, "code": "C"}, "invalid"),  # a client message
        (protocol.Hello(1, "C", name="Ann"), "invalid"),
        (42, "invalid"),
    ],
)
def test_what_is_no_server_message_is_refused_and_changes_nothing(message: Any, code: str) -> None:
    session, _ = seated(0)
    before = (session.seat, session.token, session.phase, copy.deepcopy(session.mirror), session.round)
    with pytest.raises(ProtocolError) as refused:
        session.receive(message)
    assert refused.value.code == code and refused.value.message
    assert (session.seat, session.token, session.phase, session.mirror, session.round) == before


@pytest.mark.parametrize(
    "action",
    [{"kind": "fly"}, {"kind": "play", "source": "hand", "pile": 1}, {"kind": "turn", "extra": 1}, {"card": "r5"}],
)
def test_an_action_the_protocol_does_not_know_is_refused_and_not_kept(action: dict[str, Any]) -> None:
    session, _ = seated(0)
    with pytest.raises(ProtocolError, match="invalid action"):
        session.act(action)
    assert session.pending == {} and session.last_id == 0


def test_a_plain_json_object_and_a_read_message_are_fed_alike() -> None:
    game = Round.deal(RuleSet(), 2, 7)
    text = snapshot(game, 1)
    by_text, by_object, by_struct = Session(CODE), Session(CODE), Session(CODE)
    by_text.receive(text)
    by_object.receive(json.loads(text))
    by_struct.receive(protocol.decode_server(text))
    assert by_text.mirror == by_object.mirror == by_struct.mirror
    assert by_text.seat == by_object.seat == by_struct.seat == 1


def test_a_recorded_round_fed_as_the_server_sends_it_gives_the_engines_views() -> None:
    """A recorded stream (refusals, reconnections mid-round) as messages: the session's
    mirror is the engine's view after every step, for the seat and for a spectator."""
    stream = record("expert", 3, 5)
    for seat in (stream.seat, None):
        session = Session(CODE, strict=True)
        first, sent = as_sent(stream, seat)
        session.receive(first)
        for step, message in zip(stream.steps, sent, strict=True):
            if message is not None:
                session.receive(message)
            view = step.get("view", step.get("snapshot"))
            assert session.mirror is not None and session.mirror.to_dict() == as_seen_by(view, seat)
        assert session.problems == [] and session.seat == seat
        assert session.seq == max(m["seq"] for m in sent if m is not None and m["type"] == "events")
