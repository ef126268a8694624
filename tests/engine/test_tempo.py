"""The inhuman-speed detector (engine/tempo.py): when a seat's reactions flag it, and when not."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ligretto.engine.actions import Play, Source
from ligretto.engine.area import Area
from ligretto.engine.tempo import RULE, Reactions, Rule, TableTempo, Tempo, Why, face_played

HUMAN = st.floats(min_value=RULE.floor_s, max_value=5.0, allow_nan=False)


def feed(reactions: list[float], rule: Rule = RULE) -> Tempo:
    tempo = Tempo(rule)
    for reaction in reactions:
        tempo.add(reaction)
    return tempo


@given(st.lists(st.floats(min_value=-1.0, max_value=5.0, allow_nan=False), max_size=60))
def test_the_same_reactions_give_the_same_flag(reactions: list[float]) -> None:
    assert feed(reactions).flag == feed(reactions).flag


@given(st.lists(HUMAN, min_size=RULE.regular, max_size=60), st.integers(min_value=0))
def test_reactions_over_the_floor_that_vary_are_never_flagged(reactions: list[float], pick: int) -> None:
    # spread them: every window of `regular` holds a short and a long reaction
    varied = [r if i % 2 else r * 2.0 + 0.3 for i, r in enumerate(reactions)]
    assert feed(varied).flag is None


@given(st.lists(HUMAN, max_size=40), st.lists(st.floats(min_value=0.0, max_value=0.149), min_size=RULE.below))
def test_enough_plays_under_the_floor_in_a_window_flag(before: list[float], fast: list[float]) -> None:
    tempo = feed([r if i % 2 else r * 2.0 + 0.3 for i, r in enumerate(before)])  # a person's
    assert tempo.flag is None
    flags = [tempo.add(r) for r in fast[: RULE.below]]
    assert tempo.flag is not None
    assert [f for f in flags if f is not None] == [tempo.flag]  # told once
    assert tempo.flag.plays <= len(before) + RULE.below


@given(st.floats(min_value=RULE.floor_s, max_value=3.0), st.integers(min_value=0, max_value=10))
def test_fewer_than_below_fast_plays_in_a_window_do_not_flag(slow: float, gap: int) -> None:
    # RULE.below - 1 fast plays, then a full window of slow varied ones, then again
    pattern = [0.01] * (RULE.below - 1) + [slow * (1 + (i % 3)) for i in range(RULE.window + gap)]
    assert feed(pattern * 3).flag is None


@given(st.floats(min_value=0.2, max_value=3.0), st.floats(min_value=0.0, max_value=0.07))
def test_reactions_as_regular_as_a_machine_flag(mean: float, spread: float) -> None:
    reactions = [mean * (1 + spread * (1 if i % 2 else -1)) for i in range(RULE.regular)]
    tempo = feed(reactions)
    assert tempo.flag is not None and tempo.flag.why is Why.REGULAR
    assert tempo.flag.plays == RULE.regular
    assert feed(reactions[:-1]).flag is None  # one short of the count: not judged yet


def test_a_rule_that_cannot_work_is_refused() -> None:
    with pytest.raises(ValueError, match="below"):
        Rule(window=4, below=5)
    with pytest.raises(ValueError, match="floor"):
        Rule(floor_s=float("nan"))


def test_a_play_reacts_to_the_later_of_its_card_shown_and_its_pile_changed() -> None:
    reactions = Reactions(start=1.0)
    reactions.shown(0, [5, 7], 1.0)
    assert reactions.reaction(0, 5, None, 1.5) == pytest.approx(0.5)  # a 1 shown at the start
    reactions.pile_changed(2, 3.0)
    reactions.shown(0, [5, 7, 9], 2.0)  # 9 is new; 5 and 7 keep their time
    # the pile changed after the card was shown: from the pile, less the round trip
    assert reactions.reaction(0, 9, 2, 3.4, round_trip=0.1) == pytest.approx(0.3)
    reactions.shown(0, [5, 11], 3.2)
    assert reactions.reaction(0, 11, 2, 3.4) == pytest.approx(0.2)  # shown after the pile changed
    assert reactions.reaction(0, 5, 2, 3.4) == pytest.approx(0.4)  # shown long ago: from the pile
    assert reactions.reaction(0, 9, 4, 3.4) == pytest.approx(2.4)  # neither seen since: the start


def test_the_table_watch_flags_only_the_seat_that_is_too_fast() -> None:
    def area(face: int) -> Area:
        return Area([[face]], [], [], [])

    watch = TableTempo(frozenset({0, 1}), start=0.0)
    watch.dealt([area(0), area(100)])
    at = 0.0
    for i in range(1, 12):
        # seat 1 plays its card on pile 0 after 0.6 s; seat 0 answers the change in 50 ms
        at += 0.6
        watch.played(1, 100 + i - 1, 0, at)
        watch.took_effect(1, area(100 + i), 0, at)
        at += 0.05
        watch.played(0, i - 1, 0, at)
        watch.took_effect(0, area(i), 0, at)
    assert set(watch.flags) == {0}
    flag = watch.flags[0]
    assert flag.why is Why.FAST and flag.plays == RULE.below and flag.median_s == pytest.approx(0.05)
    assert watch.played(7, None, None, at) is None  # a seat not watched
    assert face_played(area(9), Play(0, Source.ROW, None, 0)) == 9
    assert face_played(Area([[]], [4], [], [6]), Play(0, Source.DISCARD, 1)) == 6
    assert face_played(Area([[]], [4], [], []), Play(0, Source.ROW, 1)) is None
