"""The tutorial's deal and script (``server/table/tutorial.py``): the deal is a legal position
of the engine (every card of each deck exactly once, a row of the rules' length, short
Ligretto stacks the engine plays as any other), the script's moves are legal in order and
end in the learner's Stop with the engine's scores; a tutorial table starts when its
learner comes, refuses a move off the script without changing anything, lets the tutor
play only when the script comes to it, and is private and never stored."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest
from listeners import Recorder

from ligretto.engine.actions import Play, Source, Turn
from ligretto.engine.cards import CARDS, DECK_SIZE, parse_face
from ligretto.engine.events import Applied, CardPlayed, Ending, HandTurned
from ligretto.engine.notation import format_position
from ligretto.engine.scoring import score_round
from ligretto.engine.views import view
from ligretto.protocol import Phase
from ligretto.server.records.store import SqliteStore
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table, TableError
from ligretto.server.table.tutorial import LEARNER, RULES, SCRIPT, TUTOR, steps, tutorial_round
from ligretto.server.web.lobby import Lobby
from ligretto.server.web.settings import Settings


def test_the_deal_is_a_legal_position_with_every_card_once_and_short_stacks() -> None:
    game = tutorial_round()
    assert game.players == 2
    for area in game.areas:
        faces = sorted(area.faces())
        assert faces == list(range(DECK_SIZE)), "every card of the deck exactly once"
        assert len(area.row) == RULES.row_length(2) == 3
        assert all(len(column) == 1 for column in area.row)
        assert not area.discard
    # Shortened on purpose (RULES.md says 10): Stop comes after ten moves of the learner.
    assert [len(area.stack) for area in game.areas] == [6, 4]
    # The written position is the engine's own: it reads back to the same text.
    assert format_position(tutorial_round()) == format_position(game)


def test_the_script_is_legal_in_order_and_ends_in_the_learners_stop() -> None:
    game = tutorial_round()
    names = []
    for step in SCRIPT:
        assert game.ending is None, f"the round ended before {step.name}"
        result = game.apply(step.action)
        assert isinstance(result, Applied), f"{step.name}: {result}"
        names.append(step.name)
    assert names == ["one", "next", "refill", "colour", "stack", "others", "turn", "turn_again", "discard", "stop"]
    assert game.ending is Ending.STOP and game.stopped_by == LEARNER
    scores = score_round(game)
    assert (scores[LEARNER].center, scores[LEARNER].stack, scores[LEARNER].score) == (7, 0, 7)
    assert (scores[TUTOR].center, scores[TUTOR].stack, scores[TUTOR].score) == (1, 3, 1 - 2 * 3)


def test_each_lesson_shows_what_it_teaches() -> None:
    """The events of the script's moves are the ones the client's steps explain."""
    game = tutorial_round()
    seen = {step.name: game.apply(step.action) for step in SCRIPT}
    first = seen["one"]
    assert isinstance(first, Applied)
    refill = [e for e in first.events if type(e).__name__ == "RowRefilled"]
    assert refill and str(refill[0].card) == "b1", "the row refills from the stack at once"
    turned = [seen["turn"], seen["turn_again"]]
    tops = [
        e.discard_top
        for result in turned
        if isinstance(result, Applied)
        for e in result.events
        if isinstance(e, HandTurned)
    ]
    assert [str(card) for card in tops] == ["y3", "r6"], "three at a time: only the third card shows"
    tutor = seen["others"]
    assert isinstance(tutor, Applied)
    assert any(isinstance(e, CardPlayed) and e.player == TUTOR for e in tutor.events)


def test_the_script_the_client_gets_names_every_move_as_an_act_would_without_its_card() -> None:
    script = msgspec.to_builtins(steps())  # as the client reads it
    assert [step["step"] for step in script] == [step.name for step in SCRIPT]
    assert script[0] == {
        "step": "one",
        "seat": LEARNER,
        "action": {"kind": "play", "source": "row", "position": 0, "pile": None},
    }
    assert script[6] == {"step": "turn", "seat": LEARNER, "action": {"kind": "turn"}}
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

    # The script: the tutor moves only when its turn in the script comes.
    for step in SCRIPT:
        if step.seat == TUTOR:
            count = len(learner.of("events"))
            scheduler.advance(0.02 - 0.001)
            assert len(learner.of("events")) == count, "the tutor moved before its delay"
            scheduler.advance(0.001)
            assert len(learner.of("events")) == count + 1, "the tutor did not move after its delay"
            assert learner.of("events")[-1]["by"] == TUTOR
            continue
        assert isinstance(table.act(LEARNER, step.action, step.name), Applied)
        assert learner.of("ack")[-1] == {"type": "ack", "id": step.name, "applied": True}
    tutor_moves = [m for m in learner.of("events") if m["by"] == TUTOR]
    assert len(tutor_moves) == sum(step.seat == TUTOR for step in SCRIPT)
    assert table.phase is Phase.OVER
    over = learner.of("round_over")[-1]
    assert over["stopped_by"] == LEARNER and over["scores"][LEARNER]["score"] == 7

    # A rematch deals the tutorial again, from the first step.
    table.start(LEARNER)
    assert table.phase is Phase.COUNTDOWN and tutor.next_step == 0
    assert table.game is not game and format_position(table.game) == format_position(tutorial_round())
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
