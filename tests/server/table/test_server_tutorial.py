"""The tutorial's deals and script (``server/table/tutorial.py``): each deal is a legal
position of the engine (every card of each deck exactly once, a row of the rules' length,
short Ligretto stacks the engine plays as any other), the script's moves are legal in
order and teach what they say: a pile completed at 10 that still counts, a race the tutor
wins, Stop, a second deal where nobody can play but the engine cannot prove it (so the
stalemate vote ends it), and a match of two rounds with running totals.  A tutorial table
starts when its learner comes, refuses a move off the script without changing anything,
stages the race at the learner's move, lets the tutor play only when the script comes to
it, deals the second round when the learner is ready, and is private and never stored."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest
from listeners import Recorder

from ligretto.engine.actions import Play, Source, Turn
from ligretto.engine.cards import CARDS, DECK_SIZE, NUMBERS, parse_face
from ligretto.engine.events import Applied, CardPlayed, Ending, HandTurned, PileCompleted, Reason, Refused
from ligretto.engine.match import Match
from ligretto.engine.notation import format_position
from ligretto.engine.races import race_lost
from ligretto.engine.scoring import score_round
from ligretto.engine.views import view
from ligretto.protocol import Phase
from ligretto.server.records.store import SqliteStore
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table, TableError
from ligretto.server.table.tutorial import LEARNER, ROUNDS, RULES, SCRIPT, TUTOR, Tutor, steps, tutorial_round
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings

NAMES = [
    ["one", "next", "refill", "colour", "stack", "others", "turn", "turn_again", "discard", "under", "race"],
    ["new_round", "vote", "agree"],
]
NAMES[0] += ["beaten", "complete", "stop"]
"""The lessons of each round, in order."""


def test_the_deals_are_legal_positions_with_every_card_once_and_short_stacks() -> None:
    assert ROUNDS == 2 and RULES.match_end.n == 2, "a match of two rounds"
    for number in (1, 2):
        game = tutorial_round(number)
        assert game.players == 2
        for area in game.areas:
            assert sorted(area.faces()) == list(range(DECK_SIZE)), "every card of the deck exactly once"
            assert len(area.row) == RULES.row_length(2) == 3
            assert all(len(column) == 1 for column in area.row)
            assert not area.discard
        # The written position is the engine's own: it reads back to the same text.
        assert format_position(tutorial_round(number)) == format_position(game)
    # Shortened on purpose (RULES.md says 10): Stop comes after thirteen moves of the learner.
    assert [len(area.stack) for area in tutorial_round(1).areas] == [7, 5]
    assert sum(step.round == 1 and step.seat == LEARNER for step in SCRIPT) == 13
    assert [len(area.stack) for area in tutorial_round(2).areas] == [2, 2]


def test_the_script_plays_a_match_of_two_rounds_stop_then_the_stalemate_vote() -> None:
    """Through the engine's own ``Match``, dealt by the tutor as a table deals it."""
    match = Match(RULES, 2, seed=1)
    tutor = Tutor("Ann")
    seen: dict[str, Applied | Refused] = {}
    for number in (1, 2):
        game = tutor.deal(match)
        assert match.round_number == number and tutor.expected is not None and tutor.expected.round == number
        names = []
        for step in SCRIPT[tutor.next_step :]:
            if step.round != number:
                break
            assert game.ending is None, f"the round ended before {step.name}"
            if step.rival is not None:
                assert isinstance(game.apply(step.rival), Applied), f"{step.name}: the tutor's card first"
            seen[step.name] = result = game.apply(step.action)
            assert isinstance(result, Refused if step.rival else Applied), f"{step.name}: {result}"
            names.append(step.name)
            tutor.followed(step, step.seat, step.action, result)
        assert names == NAMES[number - 1]
        match.finish_round()
    assert tutor.expected is None, "the script is done"
    first, second = match.sheet.rounds
    # Round 1: the learner's Stop; 10 cards in the center (the complete pile's too), none left.
    assert [(line.center, line.stack, line.score) for line in first] == [(10, 0, 10), (2, 3, 2 - 2 * 3)]
    # Round 2: ended by everyone's vote as it stood; every card left in a stack costs 2.
    assert [(line.center, line.stack, line.score) for line in second] == [(0, 2, -4), (0, 2, -4)]
    assert match.sheet.endings == [Ending.STOP.value, Ending.STALEMATE_VOTE.value]
    assert match.over and match.sheet.totals() == (6, -8) and match.winners() == (LEARNER,)


def test_each_lesson_shows_what_it_teaches() -> None:
    """The events of the script's moves are the ones the client's steps explain."""
    game = tutorial_round(1)
    seen: dict[str, Applied | Refused] = {}
    lost = None
    for step in SCRIPT:
        if step.round != 1:
            continue
        if step.rival is not None:
            game.apply(step.rival)
        seen[step.name] = result = game.apply(step.action)
        if step.rival is not None:
            lost = race_lost(game, step.action, result)
    first = seen["one"]
    assert isinstance(first, Applied)
    refill = [e for e in first.events if type(e).__name__ == "RowRefilled"]
    assert refill and str(refill[0].card) == "b1", "the row refills from the stack at once"
    tops = [
        e.discard_top
        for name in ("turn", "turn_again")
        for e in getattr(seen[name], "events", ())
        if isinstance(e, HandTurned)
    ]
    assert [str(card) for card in tops] == ["y3", "r6"], "three at a time: only the third card shows"
    uncovered = [
        str(e.uncovered)
        for name in ("discard", "under")
        for e in getattr(seen[name], "events", ())
        if isinstance(e, CardPlayed)
    ]
    assert uncovered == ["r7", "r9"], "a played discard top uncovers the card under it"
    tutor = seen["others"]
    assert isinstance(tutor, Applied)
    assert any(isinstance(e, CardPlayed) and e.player == TUTOR for e in tutor.events)
    # The race: the learner's red 8 is refused, beaten to the 8th place by the tutor's, and stays.
    race = seen["race"]
    assert isinstance(race, Refused) and race.reason is Reason.DOES_NOT_FIT
    assert lost == (0, 8, TUTOR)
    assert game.areas[LEARNER].row[2] == [parse_face("r8")], "the lost card stayed in the row"
    # The red pile is complete at 10 and closed; its cards count for whoever played them.
    complete = seen["complete"]
    assert isinstance(complete, Applied) and any(isinstance(e, PileCompleted) for e in complete.events)
    assert len(game.pile_seats[0]) == NUMBERS and game.pile_seats[0].count(TUTOR) == 2
    assert score_round(game)[LEARNER].center == 8 + 2, "the complete pile's 8 and the blue 1 and 2"
    # Row, hand and discard count 0: the learner ends with cards in all three.
    learner = game.areas[LEARNER]
    assert learner.row and learner.hand and learner.discard and score_round(game)[LEARNER].score == 10

    # Round 2: nobody can play (no 1 shows), yet the engine cannot prove it: the vote ends it.
    second = tutorial_round(2)
    assert not any(isinstance(action, Play) for action in second.legal_actions(LEARNER))
    assert not any(isinstance(action, Play) for action in second.legal_actions(TUTOR))
    assert not second.stalemate_proven(), "a 1 lies in each hand: no automatic end"
    for step in SCRIPT:
        if step.round == 2:
            second.apply(step.action)
            assert second.ending is None or step.name == "agree"
    assert second.ending is Ending.STALEMATE_VOTE


def test_the_script_the_client_gets_names_every_move_as_an_act_would_without_its_card() -> None:
    script = msgspec.to_builtins(steps())  # as the client reads it
    assert [step["step"] for step in script] == [step.name for step in SCRIPT] == NAMES[0] + NAMES[1]
    assert script[0] == {
        "step": "one",
        "round": 1,
        "seat": LEARNER,
        "action": {"kind": "play", "source": "row", "position": 0, "pile": None},
        "beaten_by": None,
    }
    assert script[6]["action"] == {"kind": "turn"}
    race = script[NAMES[0].index("race")]
    assert race["beaten_by"] == TUTOR and race["seat"] == LEARNER
    assert [step["beaten_by"] for step in script].count(None) == len(script) - 1, "one staged race"
    assert script[-2:] == [
        {"step": "vote", "round": 2, "seat": LEARNER, "action": {"kind": "vote"}, "beaten_by": None},
        {"step": "agree", "round": 2, "seat": TUTOR, "action": {"kind": "vote"}, "beaten_by": None},
    ]
    assert [step["round"] for step in script] == [1] * len(NAMES[0]) + [2] * len(NAMES[1])
    assert {step["seat"] for step in script} == {LEARNER, TUTOR}
    assert all("card" not in step["action"] for step in script), "the script names no hidden card"


def _play(card: str, source: Source, position: int, pile: int | None) -> Play:
    return Play(LEARNER, source, pile, position, CARDS[LEARNER][parse_face(card)])


def test_a_tutorial_table_follows_the_script_and_refuses_any_other_move() -> None:
    scheduler = VirtualScheduler()
    table = Table.tutorial("TUTOR", "Ann", countdown_s=0.01, tutor_delay_s=0.02, scheduler=scheduler)
    tutor = table.tutor
    assert tutor is not None
    assert not table.public and table.summary().taken == 2
    learner = Recorder()
    with pytest.raises(TableError) as joined:
        table.join(Recorder(), "Bob")
    assert joined.value.code == "full"
    assert table.rejoin(learner, tutor.token) == LEARNER
    assert table.phase is Phase.COUNTDOWN, "the round is dealt as soon as the learner comes"
    assert learner.of("snapshot")[0]["view"]["areas"][LEARNER]["row"] == [["r1"], ["g5"], ["r2"]]
    scheduler.advance(0.01)
    assert table.phase is Phase.PLAYING, "the countdown is over"
    game = table.game
    assert game is not None

    # Off the script: a legal move that is not the one asked for changes nothing.
    before = view(game, LEARNER).to_dict()
    for wrong in (Turn(LEARNER), _play("r2", Source.ROW, 2, None)):
        with pytest.raises(TableError) as refused:
            table.act(LEARNER, wrong, 1)
        assert refused.value.code == "off_script"
    assert view(game, LEARNER).to_dict() == before and tutor.next_step == 0
    assert not learner.of("events")

    # The script: the tutor moves only when its turn in the script comes; at the race its
    # card gets there first, the moment the learner's arrives; between the rounds the
    # learner's Ready deals the second.
    for step in SCRIPT:
        if step.round == 2 and table.phase is Phase.SCORING:
            assert learner.of("round_over")[-1]["round"] == 1
            table.ready(LEARNER)  # the tutor is ready at once: the second deal comes
            assert table.phase is Phase.COUNTDOWN and tutor.expected is step
            assert learner.of("snapshot")[-1]["view"]["areas"][LEARNER]["row"] == [["g7"], ["b5"], ["y8"]]
            scheduler.advance(0.01)
        if step.seat == TUTOR:
            count = len(learner.of("events"))
            scheduler.advance(0.02 - 0.001)
            assert len(learner.of("events")) == count, "the tutor moved before its delay"
            scheduler.advance(0.001)
            assert len(learner.of("events")) == count + 1, "the tutor did not move after its delay"
            assert learner.of("events")[-1]["by"] == TUTOR
            continue
        count = len(learner.of("events"))
        result = table.act(LEARNER, step.action, step.name)
        if step.rival is None:
            assert isinstance(result, Applied), step.name
            assert learner.of("ack")[-1] == {"type": "ack", "id": step.name, "applied": True}
            continue
        # The staged race: the tutor's red 8 went first, the learner's is beaten to it.
        assert isinstance(result, Refused) and result.reason is Reason.DOES_NOT_FIT
        assert [m["by"] for m in learner.of("events")[count:]] == [TUTOR]
        ack = learner.of("ack")[-1]
        assert (ack["id"], ack["applied"], ack["by"], ack["by_ms"]) == (step.name, False, TUTOR, 0)
        assert learner.of("race")[-1] == {
            "type": "race",
            "round": 1,
            "pile": 0,
            "winner": TUTOR,
            "loser": LEARNER,
            "ms": 0,
        }
    tutor_moves = [m for m in learner.of("events") if m["by"] == TUTOR]
    assert len(tutor_moves) == sum(step.seat == TUTOR for step in SCRIPT) + 1, "its moves and the race's red 8"
    assert table.phase is Phase.OVER and tutor.expected is None
    first, second = learner.of("round_over")
    assert first["stopped_by"] == LEARNER and first["scores"][LEARNER]["score"] == 10
    assert second["ending"] == Ending.STALEMATE_VOTE.value and second["totals"] == [6, -8]
    assert second["winners"] == [LEARNER]

    # A rematch deals the tutorial again, from the first step.
    table.start(LEARNER)
    assert table.phase is Phase.COUNTDOWN and tutor.next_step == 0
    assert table.game is not game and format_position(table.game) == format_position(tutorial_round(1))
    table.close()


def test_tutorial_tables_are_not_stored_and_go_when_left(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = SqliteStore(tmp_path / "t.db")
        lobby = Lobby(Settings(countdown_s=0.01, abandoned_s=0.0), store)
        table = lobby.create_tutorial("Ann")
        assert lobby.public_tables() == [] and table.tutor is not None
        learner = Recorder()
        table.rejoin(learner, table.tutor.token)
        table.disconnected(learner)
        assert lobby.sweep() == [table.code], "a tutorial left in the middle of its round goes"
        store.commit()
        assert list(store.load_tables(countdown_s=0.01)) == []
        for name in ("tables", "rounds", "actions"):
            assert store.db.execute(f"SELECT COUNT(*) FROM {name}").fetchone() == (0,), f"a tutorial row in {name}"
        store.close()

    asyncio.run(scenario())
