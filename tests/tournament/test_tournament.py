"""The tournament core: Swiss pairing, the same deals per stage, duplicate standings."""

from __future__ import annotations

import ast
import random
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ligretto.tournament
from ligretto.tournament import (
    Pairing,
    Tournament,
    TournamentError,
    capacities,
    duplicate_scores,
    going_on,
    knockout_stages,
    pair,
    repeats,
    replay,
    restore,
    stage_seed,
    table_ranking,
)


def play_out(tournament: Tournament, rng: random.Random, low: int = -10, high: int = 20) -> None:
    """Every stage paired and every table given random rounds (1-4 of them)."""
    while not tournament.over:
        stage = tournament.next_stage()
        for table in stage.tables:
            rounds = [[rng.randint(low, high) for _ in table.seats] for _ in range(rng.randint(1, 4))]
            tournament.record(stage.number, table.number, rounds)


@pytest.mark.parametrize("seed", range(8))
def test_sixteen_entrants_in_tables_of_four_never_meet_twice_in_three_stages(seed: int) -> None:
    """Three Swiss stages of 16 at tables of 4 always exist without a repeat; a fourth
    and fifth may not (the first three may rule a resolvable design out), so a repeat
    there is allowed, but a pairing tries the fewest."""
    tournament = Tournament(16, 4, 3, seed=seed)
    play_out(tournament, random.Random(seed))
    seen: set[frozenset[int]] = set()
    for stage in tournament.stages:
        assert sorted(e for table in stage.tables for e in table.entrants) == list(range(16))
        for table in stage.tables:
            pairs = {frozenset((a, b)) for a in table.entrants for b in table.entrants if a < b}
            assert not pairs & seen, f"stage {stage.number} table {table.number} repeats {pairs & seen}"
            seen |= pairs
    assert len(seen) == 3 * 4 * 6


def test_sixty_four_entrants_at_tables_of_four_meet_nobody_twice_in_ten_stages() -> None:
    """Past the bounded search (late stages, where it gives up), the greedy seats and the
    swaps that follow still find stages without a repeat (the greedy seats alone repeat
    30 pairs here)."""
    tournament = Tournament(64, 4, 10, seed=1)
    rng = random.Random(1)
    while not tournament.over:
        stage = tournament.next_stage()
        for table in stage.tables:
            tournament.record(
                stage.number, table.number, [[rng.randint(-10, 20) for _ in table.seats] for _ in range(3)]
            )
    pairs = [
        frozenset((a, b))
        for stage in tournament.stages
        for table in stage.tables
        for a in table.entrants
        for b in table.entrants
        if a < b
    ]
    assert len(pairs) == len(set(pairs)) == 10 * 16 * 6


def test_every_table_of_a_stage_has_the_stage_s_seed_and_stages_differ() -> None:
    tournament = Tournament(10, 4, 3, seed=5)
    play_out(tournament, random.Random(2))
    seeds = [stage.seed for stage in tournament.stages]
    assert seeds == [stage_seed(5, n) for n in (1, 2, 3)]
    assert len(set(seeds)) == 3 and stage_seed(6, 1) != seeds[0]
    # byes: 10 entrants at tables of 4 are tables of 4, 3, 3; the bots sit last
    for stage in tournament.stages:
        assert [len(table.entrants) for table in stage.tables] == [4, 3, 3]
        assert all(table.seats[3] is None for table in stage.tables[1:])


def test_duplicate_score_is_the_seat_against_the_same_seat_elsewhere() -> None:
    # round 1 at three tables, round 2 only at the first two, round 3 only at the first
    tables = [
        [(10, 0), (3, 3), (7, 1)],
        [(4, 6), (5, 5)],
        [(7, 3)],
    ]
    scores = duplicate_scores(tables)
    # round 1 means: seat 0 (10+4+7)/3 = 7, seat 1 3; round 2: 4 and 4; round 3: 7 and 1
    assert scores == [
        [Fraction(10 - 7 + 3 - 4 + 0), Fraction(0 - 3 + 3 - 4 + 0)],
        [Fraction(4 - 7 + 5 - 4), Fraction(6 - 3 + 5 - 4)],
        [Fraction(0), Fraction(0)],
    ]


def test_luck_of_the_cards_cancels_out() -> None:
    """A deal that gives seat 0 forty points more everywhere changes nobody's duplicate
    score; the player who plays the seat better is ahead whichever seat it was."""
    tournament = Tournament(8, 2, 1, seed=3)
    stage = tournament.next_stage()
    strong = stage.tables[0].seats[1]
    for table in stage.tables:
        extra = 5 if table.number == 1 else 0  # the strong one plays seat 1 at table 1
        tournament.record(1, table.number, [(40, extra), (41, 1 + extra)])
    first = tournament.standings()[0]
    assert first.entrant == strong and first.duplicate == Fraction(15, 2)
    # raw points would have put the seat-0 players first
    assert max(tournament.standings(), key=lambda s: s.points).points == 81


def test_standings_tie_breaks_points_then_rounds_won_then_entrant_number() -> None:
    tournament = Tournament(4, 2, 1, seed=0)
    stage = tournament.next_stage()
    for table in stage.tables:
        tournament.record(1, table.number, [(5, 5)])  # all level: entrant numbers decide
    assert [line.entrant for line in tournament.standings()] == [0, 1, 2, 3]
    assert [line.place for line in tournament.standings()] == [1, 2, 3, 4]


def test_later_stages_pair_by_standing() -> None:
    tournament = Tournament(8, 4, 2, seed=11)
    stage = tournament.next_stage()
    for table in stage.tables:
        # one round: at table 1 seat 0 scores most, at table 2 seat 3
        scores = [10 * (3 - seat) if table.number == 1 else 10 * seat for seat in range(4)]
        tournament.record(1, table.number, [scores])
    order = [line.entrant for line in tournament.standings()]
    assert [line.duplicate for line in tournament.standings()] == [15, 15, 5, 5, -5, -5, -15, -15]
    second = tournament.next_stage()
    # any table of 4 repeats two pairs here; the top four (two from each table) do no worse
    assert second.tables[0].seats == tuple(order[:4])
    assert second.tables[1].seats == tuple(order[4:])


def test_mixed_pairing_follows_the_seed_alone_and_swiss_the_standings() -> None:
    """Mixed: the stages follow from the seed alone (any results give the same tables);
    Swiss: from the standings too."""
    mixed = [Tournament(16, 4, 4, seed=7, pairing=Pairing.MIXED) for _ in range(2)]
    swiss = [Tournament(16, 4, 4, seed=7) for _ in range(2)]
    for results, tournaments in enumerate(zip(mixed, swiss, strict=True)):
        for tournament in tournaments:
            play_out(tournament, random.Random(results))
    assert mixed[0].stages == mixed[1].stages
    assert swiss[0].stages != swiss[1].stages
    assert mixed[0].stages[0] == swiss[0].stages[0]  # the first stage: shuffled from the seed either way
    assert [line.entrant for line in mixed[0].standings()] != [line.entrant for line in mixed[1].standings()]


def test_refusals_say_why_and_change_nothing() -> None:
    with pytest.raises(TournamentError, match="2-256 entrants"):
        Tournament(1, 4, 1, seed=0)
    with pytest.raises(TournamentError, match="1-12 stages"):
        Tournament(8, 4, 0, seed=0)
    with pytest.raises(ValueError, match="at least 2 seats"):
        Tournament(8, 1, 1, seed=0)
    tournament = Tournament(6, 3, 2, seed=0)
    with pytest.raises(TournamentError, match="no stage 1"):
        tournament.record(1, 1, [(1, 2, 3)])
    tournament.next_stage()
    with pytest.raises(TournamentError, match="still being played"):
        tournament.next_stage()
    with pytest.raises(TournamentError, match="3 scores"):
        tournament.record(1, 1, [(1, 2)])
    with pytest.raises(TournamentError, match="no table 3"):
        tournament.record(1, 3, [(1, 2, 3)])
    tournament.record(1, 1, [(1, 2, 3)])
    with pytest.raises(TournamentError, match="recorded already"):
        tournament.record(1, 1, [(1, 2, 3)])
    assert tournament.results == {(1, 1): ((1, 2, 3),)}
    with pytest.raises(TournamentError, match="every entrant once"):
        restore(6, 3, 2, 0, played=[[(0, 1, 2), (3, 4, 4)]], results={})


@settings(max_examples=60, deadline=None)
@given(
    entrants=st.integers(2, 40),
    table_size=st.integers(2, 6),
    stages=st.integers(1, 5),
    seed=st.integers(0, 2**63 - 1),
    results_seed=st.integers(0, 1000),
)
def test_any_tournament_seats_everyone_once_a_stage_and_replays_exactly(
    entrants: int, table_size: int, stages: int, seed: int, results_seed: int
) -> None:
    tournament = Tournament(entrants, table_size, stages, seed)
    play_out(tournament, random.Random(results_seed))
    for stage in tournament.stages:
        seated = [e for table in stage.tables for e in table.entrants]
        assert sorted(seated) == list(range(entrants))
        # at most one bye a table, and never a table with fewer than one person... unless tiny
        assert [len(t.entrants) for t in stage.tables] == capacities(entrants, table_size)
        assert all(len(t.seats) == table_size for t in stage.tables)
    # the duplicate scores of a stage sum to zero over each seat: luck cancels out exactly
    total = sum((line.duplicate for line in tournament.standings()), Fraction(0))
    bots = Fraction(0)
    for stage in tournament.stages:
        matches = [tournament.results[stage.number, t.number] for t in stage.tables]
        for table, scores in zip(stage.tables, duplicate_scores(matches), strict=True):
            bots += sum(score for seat, score in enumerate(scores) if table.seats[seat] is None)
    assert total + bots == 0
    # rebuilt from the results alone: the same stages and standings
    again = replay(
        entrants,
        table_size,
        stages,
        seed,
        [[tournament.results[s.number, t.number] for t in s.tables] for s in tournament.stages],
    )
    assert again.stages == tournament.stages
    assert again.standings() == tournament.standings()
    # and from its stored seats and results, without pairing again
    played = [[table.seats for table in stage.tables] for stage in tournament.stages]
    stored = restore(entrants, table_size, stages, seed, played=played, results=tournament.results)
    assert stored.stages == tournament.stages and stored.standings() == tournament.standings()


@settings(max_examples=60, deadline=None)
@given(order=st.permutations(range(12)), pairs=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=30))
def test_pairing_repeats_nobody_when_the_search_can_avoid_it(order: list[int], pairs: list[tuple[int, int]]) -> None:
    met: dict[int, set[int]] = {}
    for a, b in pairs:
        if a != b:
            met.setdefault(a, set()).add(b)
            met.setdefault(b, set()).add(a)
    tables = pair(order, 4, met)
    assert sorted(e for t in tables for e in t) == list(range(12))
    assert tables[0][0] == order[0]
    # the greedy fallback is only taken when no repeat-free pairing exists
    if sum(repeats(t, met) for t in tables):
        assert not _exists_without_repeats(list(range(12)), met)


def _exists_without_repeats(free: list[int], met: dict[int, set[int]]) -> bool:
    """Brute force: can ``free`` be cut into tables of 4 with no repeat pair?"""
    if not free:
        return True
    first, rest = free[0], free[1:]
    from itertools import combinations

    for others in combinations(rest, 3):
        table = (first, *others)
        if repeats(table, met) == 0 and _exists_without_repeats([e for e in rest if e not in others], met):
            return True
    return False


def test_the_core_imports_only_the_standard_library() -> None:
    folder = Path(ligretto.tournament.__file__).parent
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.partition(".")[0] in sys.stdlib_module_names, f"{path.name} imports {name}"


def test_a_knockout_keeps_the_top_half_of_each_table_until_one_table_plays_the_final() -> None:
    tournament = Tournament(16, 4, 3, 29, pairing=Pairing.KNOCKOUT)
    assert tournament.stage_count == knockout_stages(16, 4) == 3  # 16 at 4 tables, 8 at 2, the final of 4
    rng = random.Random(7)
    went_on: list[set[int]] = []
    while not tournament.over:
        stage = tournament.next_stage()
        seated = {e for table in stage.tables for e in table.entrants}
        assert seated == (set(range(16)) if stage.number == 1 else went_on[-1])
        assert tournament.still_in() == seated
        for table in stage.tables:
            tournament.record(stage.number, table.number, [[rng.randint(-10, 20) for _ in table.seats]] * 2)
        # the top half of each table by the stage's duplicate score, then points, goes on
        matches = [tournament.results[stage.number, t.number] for t in stage.tables]
        kept = set()
        for table, rounds, scores in zip(stage.tables, matches, duplicate_scores(matches), strict=True):
            by_result = sorted(
                table.entrants,
                key=lambda e: (-scores[table.seats.index(e)], -sum(r[table.seats.index(e)] for r in rounds), e),
            )
            assert table_ranking(table.seats, rounds, scores) == by_result
            kept |= set(by_result[:2])
        went_on.append(kept)
    assert [len(stage.tables) for stage in tournament.stages] == [4, 2, 1]
    final = tournament.stages[-1].tables[0]
    (winner,) = tournament.still_in()
    final_rounds = tournament.results[3, 1]
    assert winner == max(final.entrants, key=lambda e: (sum(r[final.seats.index(e)] for r in final_rounds), -e))
    standings = tournament.standings()
    # the bracket: who went out at which stage; the standings by the stage reached
    assert [line.out for line in standings] == [None, 3, 3, 3, 2, 2, 2, 2, *[1] * 8]
    assert standings[0].entrant == winner
    assert [line.entrant for line in standings[:4]] == table_ranking(
        final.seats, final_rounds, duplicate_scores([final_rounds])[0]
    )
    assert tournament.knocked_out() == {line.entrant: line.out for line in standings if line.out is not None}
    with pytest.raises(TournamentError, match="every stage"):
        tournament.next_stage()


@settings(max_examples=40, deadline=None)
@given(
    entrants=st.integers(2, 40),
    table_size=st.integers(2, 6),
    seed=st.integers(0, 2**63 - 1),
    results_seed=st.integers(0, 1000),
)
def test_any_knockout_ends_with_one_winner_and_replays_exactly(
    entrants: int, table_size: int, seed: int, results_seed: int
) -> None:
    tournament = Tournament(entrants, table_size, 1, seed, pairing=Pairing.KNOCKOUT)
    play_out(tournament, random.Random(results_seed))
    assert len(tournament.stages) == knockout_stages(entrants, table_size) <= 12
    assert len(tournament.stages[-1].tables) == 1
    for earlier, later in zip(tournament.stages, tournament.stages[1:], strict=False):
        before = [e for table in earlier.tables for e in table.entrants]
        after = sorted(e for table in later.tables for e in table.entrants)
        assert len(after) == sum(going_on(len(table.entrants)) for table in earlier.tables) < len(before)
        assert set(after) < set(before)
    standings = tournament.standings()
    assert [line.out for line in standings].count(None) == 1 and standings[0].out is None
    outs = [line.out for line in standings[1:]]
    assert outs == sorted(outs, reverse=True)  # who lasted longer stands higher
    results = [[tournament.results[s.number, t.number] for t in s.tables] for s in tournament.stages]
    again = replay(entrants, table_size, 1, seed, results, pairing=Pairing.KNOCKOUT)
    assert again.stages == tournament.stages and again.standings() == standings
    played = [[table.seats for table in stage.tables] for stage in tournament.stages]
    stored = restore(entrants, table_size, 3, seed, played=played, results=tournament.results, pairing=Pairing.KNOCKOUT)
    assert stored.stages == tournament.stages and stored.standings() == standings
