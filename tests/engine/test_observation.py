"""Bots see the table only through :class:`Observation`: public information only (RULES.md §9).

Three angles on "nothing hidden reaches a bot":

* card by card: every public member of ``Observation``, called with every argument it
  takes, returns only cards that are public (row cards, stack tops, discard tops) --
  never a hand card, a stack card below the top or a discard card below the top, as
  ``(seat, face)`` pairs taken from the engine's own state;
* by difference: two rounds with the same public position but different hidden cards
  give identical answers to every member (this catches leaks in plain ints too), and
  every strategy takes the same decisions in both with the same random generator;
* by type: ``simulate_round`` hands a strategy an ``Observation``, never the ``Round``.

Cards are unique per seat only (every deck has its own r5), so a card is ``(seat, face)``.
"""

from __future__ import annotations

import dataclasses
import inspect
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ligretto.bots import STRATEGIES, Observation, Strategy, parse_bots, register
from ligretto.bots.strategies import GreedyStrategy
from ligretto.engine import (
    PRESETS,
    Action,
    Card,
    Round,
    RuleSet,
    Source,
    format_position,
    parse_position,
    view,
)
from ligretto.engine.area import Area
from ligretto.engine.cards import CARDS, DECK_SIZE
from ligretto.sim import simulate_round
from positions import play_some

NUMBERS = 10
KEEP = (15, 4, 4)
"""For the behavioural twins: keep the next five packets of every hand, the top four stack
cards and the top four discard cards, so the twins stay publicly equal for a while."""

# --- positions -------------------------------------------------------------------------


def hidden_twin(game: Round, rng: random.Random, keep: tuple[int, int, int] = (0, 1, 1)) -> Round:
    """A copy of ``game`` whose hidden cards are dealt out again at random.

    ``keep`` = (hand, stack, discard): the cards below the top ``keep[1]`` of each stack,
    below the top ``keep[2]`` of each discard pile and below the top ``keep[0]`` of each
    hand trade places; every public fact stays the same.
    """
    keep_hand_top, keep_stack_top, keep_discard_top = keep
    assert keep_stack_top >= 1 and keep_discard_top >= 1
    twin = game.copy()
    for area in twin.areas:
        ks = min(keep_stack_top, len(area.stack))
        kh = min(keep_hand_top, len(area.hand))
        kd = min(keep_discard_top, len(area.discard))
        stack_low, stack_top = area.stack[: len(area.stack) - ks], area.stack[len(area.stack) - ks :]
        discard_low, discard_top = area.discard[: len(area.discard) - kd], area.discard[len(area.discard) - kd :]
        hand_low, hand_top = area.hand[: len(area.hand) - kh], area.hand[len(area.hand) - kh :]
        pool = stack_low + discard_low + hand_low
        rng.shuffle(pool)
        area.stack = pool[: len(stack_low)] + stack_top
        area.discard = pool[len(stack_low) : len(stack_low) + len(discard_low)] + discard_top
        area.hand = pool[len(stack_low) + len(discard_low) :] + hand_top
    return twin


def twins(game: Round, seed: int, keep: tuple[int, int, int] = (0, 1, 1)) -> tuple[Round, Round]:
    """Two positions written and read back with the notation: ``game`` itself and a twin
    with the same public position and different hidden cards (when it has any to move)."""
    rng = random.Random(f"twin:{seed}")
    first = parse_position(format_position(game), game.rules, game.seed)
    for _ in range(20):
        other = hidden_twin(game, rng, keep)
        second = parse_position(format_position(other), game.rules, game.seed)
        if format_position(second) != format_position(first):
            break
    assert view(first).to_dict() == view(second).to_dict(), "the twins must look the same"
    return first, second


def hidden_cards(game: Round) -> set[tuple[int, int]]:
    """``(seat, face)`` of every card nobody may see."""
    return {
        (seat, face)
        for seat, area in enumerate(game.areas)
        for face in (*area.hand, *area.stack[:-1], *area.discard[:-1])
    }


def public_cards(game: Round) -> set[tuple[int, int]]:
    """``(seat, face)`` of every card anyone may see: rows (whole columns), stack and
    discard tops and the center."""
    cards = set()
    for seat, area in enumerate(game.areas):
        cards.update((seat, face) for column in area.row for face in column)
        cards.update((seat, pile[-1]) for pile in (area.stack, area.discard) if pile)
    for colour, seats in zip(game.pile_colours, game.pile_seats, strict=True):
        cards.update((seat, colour * NUMBERS + number) for number, seat in enumerate(seats))
    return cards


def shown_cards(game: Round) -> set[tuple[int, int]]:
    """The public cards of the players' areas (the center is shown as colours and sizes)."""
    cards = set()
    for seat, area in enumerate(game.areas):
        cards.update((seat, column[-1]) for column in area.row)
        cards.update((seat, pile[-1]) for pile in (area.stack, area.discard) if pile)
    return cards


# --- calling every member of an Observation -------------------------------------------


def calls(seen: Observation) -> Iterator[tuple[str, Callable[[], Any]]]:
    """Every public member of ``seen`` with every argument it takes, as (label, thunk).

    A new member whose parameters this test does not know fails the test, so that it
    is checked too.
    """
    players = seen.players
    for name in sorted(n for n in dir(Observation) if not n.startswith("_")):
        member = getattr(seen, name)
        if not callable(member):
            yield name, lambda member=member: member
            continue
        choices: list[list[tuple[str, Any]]] = [[]]
        for param in inspect.signature(member).parameters.values():
            if param.name == "seat":
                values: list[Any] = [None, *range(players)]
            elif param.name == "position":
                values = list(range(5))
            elif param.name == "source":
                values = list(Source)
            elif param.name == "pile":
                values = list(range(len(seen.pile_tops())))
            elif param.name == "card":
                values = list(CARDS[seen.seat])
            elif param.name == "face":
                values = list(range(DECK_SIZE))
            else:
                pytest.fail(f"Observation.{name} takes {param.name!r}: teach this test how to call it")
            choices = [[*c, (param.name, v)] for c in choices for v in values]
        for kwargs in choices:
            yield f"{name}({kwargs})", lambda member=member, kwargs=kwargs: member(**dict(kwargs))


def answer(thunk: Callable[[], Any]) -> Any:
    """The member's answer, or the type of the error it raised (a bad position or seat)."""
    try:
        return thunk()
    except (IndexError, ValueError) as error:
        return type(error)


def cards_in(value: Any) -> Iterator[Card]:
    """Every Card anywhere inside a value (lists, tuples, sets, dicts, dataclasses)."""
    if isinstance(value, Card):
        yield value
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from cards_in(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from cards_in(key)
            yield from cards_in(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from cards_in(getattr(value, f.name))


POSITION_CASES = st.tuples(
    st.sampled_from(sorted(PRESETS)),
    st.sampled_from([2, 3, 4, 5, 8, 12]),
    st.integers(0, 10_000),
    st.integers(0, 400),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(POSITION_CASES)
def test_every_member_shows_only_public_cards(case: tuple[str, int, int, int]) -> None:
    preset, players, seed, steps = case
    game = play_some(RuleSet.preset(preset), players, seed, steps)
    hidden = hidden_cards(game)
    public = public_cards(game)
    assert hidden, "a position with no hidden card tests nothing"
    for viewer in range(players):
        seen = Observation(game, viewer)
        found: set[tuple[int, int]] = set()
        for label, thunk in calls(seen):
            for card in cards_in(answer(thunk)):
                pair = (card.owner, card.face)
                assert pair not in hidden, f"seat {viewer}: {label} shows the hidden card {card} of seat {card.owner}"
                assert pair in public, f"seat {viewer}: {label} shows {card} of seat {card.owner}, not on the table"
                found.add(pair)
        # ... and it does show everything a player may see in the areas.
        assert shown_cards(game) <= found, f"seat {viewer} cannot see {sorted(shown_cards(game) - found)}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(POSITION_CASES)
def test_hidden_cards_change_no_answer(case: tuple[str, int, int, int]) -> None:
    """Same public position, other hidden cards: every member gives the same answer."""
    preset, players, seed, steps = case
    first, second = twins(play_some(RuleSet.preset(preset), players, seed, steps), seed)
    assert format_position(first) != format_position(second), "the twins should differ in hidden cards"
    for viewer in range(players):
        one, other = Observation(first, viewer), Observation(second, viewer)
        for (label, thunk), (_, other_thunk) in zip(calls(one), calls(other), strict=True):
            assert answer(thunk) == answer(other_thunk), f"seat {viewer}: {label} depends on hidden cards"


def test_the_calls_cover_the_documented_members() -> None:
    """The member list the tests above walk really includes what a bot uses."""
    seen = Observation(Round.deal(RuleSet(), 2, 1), 0)
    labels = " ".join(label for label, _ in calls(seen))
    for name in (
        "legal_actions",
        "row",
        "column",
        "stack_top",
        "stack_size",
        "discard_top",
        "discard_size",
        "hand_size",
        "voted",
        "card_at",
        "pile_tops",
        "view",
        "center_size",
        "votes",
        "players",
        "rules",
        "over",
        "seat",
    ):
        assert name in labels, f"{name} is not called"


def test_an_observation_holds_no_public_reference_to_the_round() -> None:
    game = play_some(RuleSet.preset("expert"), 3, 5, 80)
    seen = Observation(game, 1)
    assert not hasattr(seen, "__dict__"), "an Observation should have no instance dict to put state in"
    for name in dir(seen):
        if name.startswith("_"):
            continue
        value = getattr(seen, name)
        assert not isinstance(value, (Round, Area)), f"Observation.{name} hands out the engine's state"


# --- behaviour: decisions do not depend on hidden cards --------------------------------


def lockstep(
    first: Round, second: Round, strategy: type[Strategy], seed: int, limit: int = 3000
) -> tuple[int, str | None]:
    """Let one ``strategy`` instance per seat play each twin, every pair seeded alike, seats
    picked by one shared generator; stop when the public positions part (a hidden card was
    revealed differently) or the round ends.  Returns the number of decisions taken while
    the hidden cards differed, and a description of the first decision that differed."""
    players = first.players
    bots = [
        (strategy(random.Random(f"bot:{seed}:{s}")), strategy(random.Random(f"bot:{seed}:{s}"))) for s in range(players)
    ]
    order = random.Random(f"order:{seed}")
    compared = 0
    for step in range(limit):
        if first.over or view(first).to_dict() != view(second).to_dict():
            break
        seat = order.randrange(players)
        one = bots[seat][0].choose(Observation(first, seat))
        other = bots[seat][1].choose(Observation(second, seat))
        if format_position(first) != format_position(second):
            compared += 1
        if one != other:
            return compared, f"step {step}, seat {seat}: {one} with one hidden deal, {other} with the other"
        if one is not None:
            assert type(first.apply(one)) is type(second.apply(one))
    return compared, None


@pytest.mark.parametrize("preset", ["classic", "expert", "seed-es"])
@pytest.mark.parametrize("name", ["random", "greedy", "smart", "sharp"])
def test_decisions_do_not_depend_on_hidden_cards(name: str, preset: str) -> None:
    rules = RuleSet.preset(preset)
    total = 0
    for seed in range(8):
        players = 2 + seed % 3
        game = play_some(rules, players, seed, 5 * seed)
        first, second = twins(game, seed, KEEP)
        assert format_position(first) != format_position(second)
        compared, differed = lockstep(first, second, STRATEGIES[name], seed)
        assert differed is None, f"{name} decided differently on hidden cards: {differed}"
        total += compared
    assert total >= 60, f"only {total} decisions were compared with hidden cards differing"


def test_the_lockstep_catches_a_strategy_that_peeks() -> None:
    """The harness above is able to fail: a bot that reads its hand decides differently."""

    class Peeking(Strategy):
        def choose(self, seen: Observation) -> Action | None:
            # interpreted, the private attribute is name-mangled; compiled (mypyc), it is not
            game: Round = getattr(seen, "_Observation__game", None) or getattr(seen, "__game")
            actions = seen.legal_actions()
            return actions[sum(game.areas[seen.seat].hand[:5]) % len(actions)]

    caught = 0
    for seed in range(6):
        game = play_some(RuleSet(), 3, seed, 10)
        first, second = twins(game, seed, KEEP)
        caught += lockstep(first, second, Peeking, seed)[1] is not None
    assert caught >= 3


# --- the simulator hands strategies Observations only ----------------------------------


@pytest.fixture
def restore_strategies() -> Iterator[None]:
    saved = dict(STRATEGIES)
    yield
    STRATEGIES.clear()
    STRATEGIES.update(saved)


@pytest.mark.usefixtures("restore_strategies")
@pytest.mark.parametrize("preset", ["classic", "expert"])
def test_simulate_round_gives_bots_observations_only(preset: str) -> None:
    received: list[tuple[type, int]] = []
    reachable: set[str] = set()

    @register("test-recorder")
    class Recorder(GreedyStrategy):
        def choose(self, seen: Observation) -> Action | None:
            received.append((type(seen), seen.seat))
            assert not isinstance(seen, Round)
            for name in dir(seen):
                if not name.startswith("_"):
                    value = getattr(seen, name)
                    reachable.add(type(value).__name__)
                    assert not isinstance(value, (Round, Area)), f"seen.{name} is engine state"
            return super().choose(seen)

    rules = RuleSet.preset(preset)
    bots = parse_bots("test-recorder:expert,smart:expert,test-recorder:casual", 3)
    result = simulate_round(rules, bots, 11)
    assert result.ended_by in {"stop", "stalemate_vote", "stalemate_proven"}
    assert len(received) > 20
    assert {kind for kind, _ in received} == {Observation}
    assert {seat for _, seat in received} == {0, 2}
    assert "Round" not in reachable and "Area" not in reachable
