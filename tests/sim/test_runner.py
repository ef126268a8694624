"""The simulation runner: seeds, worker processes, duplicate deals, matches, every preset."""

from __future__ import annotations

import multiprocessing
import os
import pathlib
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from ligretto.bots import BotSpec, parse_bots
from ligretto.engine import PRESETS, Round, RuleError, RuleSet, state_to_dict
from ligretto.engine.scoring import round_seed, winners
from ligretto.engine.state import STACK_SIZE
from ligretto.sim import runner, tasks
from ligretto.sim.network import Arbitration, Latency
from ligretto.sim.runner import MATCH_ROUND_LIMIT, SimConfig, SimConfigError, SimReport, run
from ligretto.sim.table import RoundResult, simulate_round

ENDINGS = {"stop", "stalemate_vote", "stalemate_proven", "time_limit"}
MIXED = "smart:expert,greedy:casual,random:expert,smart:beginner"
"""Three strategies at four human speeds: a millisecond a round.  (A machine-speed bot
turns its hand at virtual time 0 without latency, until most rounds end at the step limit,
50,000 steps, a tenth of a second each: tests/sim/test_table.py has that ending.)"""
FAST = "smart:expert"  # rounds of about a millisecond: random bots can take a second to get stuck


def config(bots: str = MIXED, players: int = 4, rules: RuleSet | None = None, **options: Any) -> SimConfig:
    return SimConfig(rules or RuleSet(), tuple(parse_bots(bots, players)), **options)


def fingerprint(report: SimReport) -> list[Any]:
    """Everything a run produced, as plain data (wall time left out)."""
    rounds = [(p.result.to_dict(), p.deal, p.seating, p.match, p.match_round) for p in report.rounds]
    return [rounds, report.matches]


# --- determinism -------------------------------------------------------------------------


NETWORK = Latency((0.01, 0.01, 0.1, 0.1), (0.0, 0.005, 0.0, 0.02), Arbitration.FAIR)


@pytest.mark.parametrize(
    "options",
    [
        {"rounds": 40},
        {"rounds": 8, "duplicate": True},  # 32 rounds: 8 deals, 4 rotations each
        {"matches": 6},
        {"rounds": 40, "latency": NETWORK},
        {"rounds": 12, "duplicate": True, "latency": Latency((0.01, 0.01, 0.1, 0.1))},
        {"matches": 6, "latency": NETWORK},
    ],
)
def test_any_number_of_workers_gives_identical_results(options: dict[str, Any]) -> None:
    results = [fingerprint(run(config(workers=workers, seed=7, **options))) for workers in (1, 2, 3)]
    assert results[0] == results[1] == results[2]
    tasks = len(runner.tasks(config(seed=7, **options)))
    assert tasks / runner.block_size(tasks, 3) >= 3  # several blocks per worker: the order is at stake


def test_rounds_are_dealt_from_round_seed_of_the_master_seed() -> None:
    cfg = config(rounds=6, seed=12345, workers=2)
    report = run(cfg)
    assert [p.result.seed for p in report.rounds] == [round_seed(12345, n) for n in range(1, 7)]
    bots = list(cfg.bots)
    for played in report.rounds:  # a worker's round is the round simulate_round plays here
        assert played.result.to_dict() == simulate_round(cfg.rules, bots, played.result.seed).to_dict()


def test_another_master_seed_gives_other_rounds() -> None:
    first = run(config(rounds=5, seed=1, workers=1))
    second = run(config(rounds=5, seed=2, workers=1))
    assert [p.result.seed for p in first.rounds] != [p.result.seed for p in second.rounds]
    assert fingerprint(first) != fingerprint(second)


def test_progress_is_reported_up_to_the_total() -> None:
    calls: list[tuple[int, int]] = []
    run(config(rounds=30, workers=2), lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 30)
    assert calls[-1] == (30, 30)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    assert len(calls) > 2


# --- worker processes --------------------------------------------------------------------
# The workers are forked, so a function patched here is the one they call.


def failing_on(seed: int, failure: Callable[[], RoundResult]) -> Callable[..., RoundResult]:
    play = tasks.simulate_round

    def patched(rules: RuleSet, bots: list[BotSpec], round_seed_: int, **kwargs: Any) -> RoundResult:
        return failure() if round_seed_ == seed else play(rules, bots, round_seed_, **kwargs)

    return patched


def test_both_workers_play_and_this_process_plays_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    alone = fingerprint(run(config(FAST, rounds=200, seed=5, workers=1)))
    log = tmp_path / "players.txt"
    play = tasks.simulate_round

    def recording(rules: RuleSet, bots: list[BotSpec], seed: int, **kwargs: Any) -> RoundResult:
        with log.open("a") as file:
            file.write(f"{os.getpid()}\n")
        return play(rules, bots, seed, **kwargs)

    monkeypatch.setattr(tasks, "simulate_round", recording)
    report = run(config(FAST, rounds=200, seed=5, workers=2))
    players = Counter(log.read_text().split())
    assert sum(players.values()) == 200
    assert len(players) == 2  # both workers took blocks
    assert str(os.getpid()) not in players
    assert fingerprint(report) == alone


def test_spawned_workers_give_the_same_results(monkeypatch: pytest.MonkeyPatch) -> None:
    # Where fork is missing (Windows) the workers are spawned: fresh interpreters that get
    # the configuration and the tasks pickled.
    forked = fingerprint(run(config(FAST, rounds=20, seed=8, workers=2)))
    monkeypatch.setattr(runner.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert fingerprint(run(config(FAST, rounds=20, seed=8, workers=2))) == forked


def test_an_error_in_a_worker_is_raised_here_and_the_workers_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom() -> RoundResult:
        raise ValueError("boom in a worker")

    monkeypatch.setattr(tasks, "simulate_round", failing_on(round_seed(3, 25), boom))
    with pytest.raises(ValueError, match="boom in a worker"):
        run(config(FAST, rounds=60, seed=3, workers=2))
    assert multiprocessing.active_children() == []


def test_an_error_that_cannot_be_pickled_arrives_as_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    class Unpicklable(Exception):  # a local class: pickle cannot find it by name
        pass

    def boom() -> RoundResult:
        raise Unpicklable("local failure")

    monkeypatch.setattr(tasks, "simulate_round", failing_on(round_seed(3, 2), boom))
    with pytest.raises(RuntimeError, match="Unpicklable: local failure"):
        run(config(FAST, rounds=60, seed=3, workers=2))
    assert multiprocessing.active_children() == []


def test_a_worker_that_dies_fails_the_run_instead_of_losing_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    def die() -> RoundResult:
        os._exit(3)

    monkeypatch.setattr(tasks, "simulate_round", failing_on(round_seed(3, 30), die))
    with pytest.raises(RuntimeError, match=r"a simulation worker died \(exit code 3\)"):
        run(config(FAST, rounds=60, seed=3, workers=2))
    assert multiprocessing.active_children() == []


def test_stopping_the_run_midway_stops_the_workers() -> None:
    def interrupt(done: int, total: int) -> None:
        if done > 0:
            raise KeyboardInterrupt  # as Ctrl-C does in the parent

    with pytest.raises(KeyboardInterrupt):
        run(config(FAST, rounds=400, workers=2), interrupt)
    assert multiprocessing.active_children() == []


# --- duplicate mode ----------------------------------------------------------------------


def test_duplicate_mode_deals_the_same_cards_to_every_rotation(monkeypatch: pytest.MonkeyPatch) -> None:
    dealt: list[dict[str, Any]] = []
    play = tasks.simulate_round

    def recording_play(rules: RuleSet, bots: list[BotSpec], seed: int, **kwargs: Any) -> RoundResult:
        # deal here, record the cards as dealt (before anyone plays), and play on that deal
        game = kwargs.pop("game", None) or Round.deal(rules, len(bots), seed)
        dealt.append(state_to_dict(game))
        return play(rules, bots, seed, game=game, **kwargs)

    monkeypatch.setattr(tasks, "simulate_round", recording_play)
    players, deals = 4, 5
    report = run(config(rounds=deals, seed=3, duplicate=True, workers=1))
    assert len(report.rounds) == len(dealt) == players * deals
    by_deal: dict[int, list[int]] = {}
    for index, played in enumerate(report.rounds):
        by_deal.setdefault(played.deal, []).append(index)
    assert sorted(by_deal) == list(range(1, deals + 1))
    for deal_number, indexes in by_deal.items():
        # the same seed and the same dealt state, once per rotation
        assert {report.rounds[i].result.seed for i in indexes} == {round_seed(3, deal_number)}
        assert all(dealt[i] == dealt[indexes[0]] for i in indexes)
        assert sorted(report.rounds[i].result.rotation for i in indexes) == list(range(players))
        # every bot sat in every seat exactly once, and seat s held bot (s + rotation) % P
        seen = Counter()
        for i in indexes:
            played = report.rounds[i]
            assert played.seating == tuple((s + played.result.rotation) % players for s in range(players))
            assert played.result.bots == [str(report.config.bots[b]) for b in played.seating]
            seen.update(enumerate(played.seating))
        assert seen == Counter({(seat, bot): 1 for seat in range(players) for bot in range(players)})
    assert dealt[0] != dealt[players]  # another deal, other cards


def test_duplicate_rotations_draw_other_bot_timings() -> None:
    report = run(config("smart:expert", rounds=3, duplicate=True, workers=1))
    first_deal = [p.result for p in report.rounds if p.deal == 1]
    assert len({(r.duration_s, r.actions) for r in first_deal}) > 1


# --- matches ---------------------------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 2])
def test_a_match_of_rounds_n_has_exactly_n_rounds(workers: int) -> None:
    rules = RuleSet().replace(match_end="rounds:3")
    report = run(config("smart:expert", 3, rules, matches=4, seed=9, workers=workers))
    assert len(report.matches) == 4
    assert len(report.rounds) == 12
    for number, match in enumerate(report.matches, start=1):
        rounds = [p for p in report.rounds if p.match == number]
        assert [p.match_round for p in rounds] == [1, 2, 3]
        assert match.rounds == 3 and match.complete
        assert match.seed == round_seed(9, number)
        assert [p.result.seed for p in rounds] == [round_seed(match.seed, k) for k in (1, 2, 3)]
        totals = tuple(sum(p.result.scores[seat] for p in rounds) for seat in range(3))
        assert match.totals == totals
        assert match.winners == winners(totals)


def test_a_match_to_a_target_ends_in_the_round_a_total_reaches_it() -> None:
    target = 40
    rules = RuleSet().replace(match_end=f"target:{target}")
    report = run(config("smart:expert,greedy:expert,random:expert", 3, rules, matches=5, workers=2))
    assert len(report.matches) == 5
    for match in report.matches:
        rounds = [p.result.scores for p in report.rounds if p.match == match.match]
        assert len(rounds) == match.rounds >= 2
        running = [0, 0, 0]
        for k, scores in enumerate(rounds, start=1):
            running = [t + s for t, s in zip(running, scores, strict=True)]
            assert (max(running) >= target) == (k == len(rounds))  # not before the last round
        assert match.totals == tuple(running)
        assert match.winning_bots() == tuple(match.seating[s] for s in winners(running))


def test_duplicate_matches_replay_each_match_in_every_rotation() -> None:
    rules = RuleSet().replace(match_end="rounds:2")
    report = run(config("smart:expert,random:expert", 2, rules, matches=3, duplicate=True, workers=1))
    assert [(m.deal, m.rotation) for m in report.matches] == [(d, r) for d in (1, 2, 3) for r in (0, 1)]
    for deal in (1, 2, 3):
        pair = [m for m in report.matches if m.deal == deal]
        assert pair[0].seed == pair[1].seed
        seeds = [[p.result.seed for p in report.rounds if p.match == m.match] for m in pair]
        assert seeds[0] == seeds[1]


def test_a_match_that_never_reaches_its_target_is_cut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks, "MATCH_ROUND_LIMIT", 3)
    rules = RuleSet().replace(match_end="target:10000")
    report = run(config("greedy:machine", 2, rules, matches=2, workers=1))
    assert [m.rounds for m in report.matches] == [3, 3]
    assert not any(m.complete for m in report.matches)
    assert MATCH_ROUND_LIMIT >= 100  # the real limit leaves any sensible target room


# --- every preset, every table size --------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 5, 8, 12])
def test_every_preset_and_table_size_simulates_to_completion(preset: str, players: int) -> None:
    rules = RuleSet.preset(preset)
    bots = ",".join(["smart:expert", "greedy:machine"] + ["random:expert"] * (players - 2))
    report = run(config(bots, players, rules, rounds=3, seed=players, workers=1))
    assert len(report.rounds) == 3
    for played in report.rounds:
        result = played.result
        assert result.ended_by in ENDINGS
        assert len(result.scores) == len(result.center) == len(result.stack_left) == players
        assert all(0 <= left <= STACK_SIZE for left in result.stack_left)
        assert all(0 <= center <= 40 for center in result.center)
        assert result.actions > 0
        if result.ended_by == "stop":
            assert result.stack_left[result.stopped_by] == 0  # type: ignore[index]


# --- configuration --------------------------------------------------------------------


def test_with_a_latency_the_delays_stay_with_the_seats_as_the_bots_rotate() -> None:
    latency = Latency((0.01, 0.01, 0.1, 0.1))
    cfg = config(rounds=2, seed=4, duplicate=True, workers=1, latency=latency)
    report = run(cfg)
    assert cfg.to_dict()["latency"] == latency.to_dict()
    assert len({p.seating for p in report.rounds}) == 4
    for played in report.rounds:
        bots = [cfg.bots[bot] for bot in played.seating]
        alone = simulate_round(cfg.rules, bots, played.result.seed, rotation=played.result.rotation, latency=latency)
        assert played.result.to_dict() == alone.to_dict()
    assert config(rounds=1).to_dict()["latency"] is None


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"rounds": 5, "latency": Latency((0.0, 0.1))}, "2 delays for 4 players"),
        ({"rounds": 5, "matches": 5}, "either rounds or matches"),
        ({}, "either rounds or matches"),
        ({"rounds": 0}, "at least 1"),
        ({"rounds": 5, "workers": 0}, "workers must be at least 1"),
    ],
)
def test_a_bad_configuration_is_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(SimConfigError, match=message):
        config(**options)


def test_thirteen_players_are_refused() -> None:
    with pytest.raises(RuleError, match="players must be 2-12"):
        config("smart:expert", 13, rounds=1)


def test_default_workers_is_every_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks.os, "cpu_count", lambda: 7)
    assert config(rounds=1).worker_count == 7
    assert config(rounds=1, workers=3).worker_count == 3
