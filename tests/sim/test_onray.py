"""Simulations on Ray: the same tasks as worker processes, the same results, clear refusals.

One small local Ray (2 CPUs, no dashboard, a small object store) serves every test of the
module that needs one: a run finds it connected and uses it as it is.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import ray

from ligretto.bots import STRATEGIES, Strategy, parse_bots, register
from ligretto.engine import Action, RuleSet, Turn
from ligretto.engine.observation import Observation
from ligretto.sim import onray
from ligretto.sim.network import Arbitration, Latency
from ligretto.sim.runner import SimConfig, SimReport, run
from ligretto.sim.stats import summarise

MIXED = "smart:expert,greedy:casual,random:expert,smart:beginner"  # human speeds: see tests/sim/test_runner.py
FAST = "smart:expert"  # rounds of about a millisecond: random bots can take a second to get stuck
NETWORK = Latency((0.01, 0.01, 0.1, 0.1), (0.0, 0.005, 0.0, 0.02), Arbitration.FAIR)


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.fixture(scope="module")
def local_ray(monkeypatch_module: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch_module.setenv("RAY_USAGE_STATS_ENABLED", "0")  # as `ligretto simulate --ray` does: no reporting
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=80 * 2**20,
        log_to_driver=False,
        configure_logging=False,
    )
    yield
    ray.shutdown()


def config(bots: str = FAST, players: int = 4, **options: Any) -> SimConfig:
    return SimConfig(RuleSet(), tuple(parse_bots(bots, players)), seed=7, **options)


def results(report: SimReport) -> list[Any]:
    """Everything a run produced that is not the machine's (its wall time, how it ran)."""
    rounds = [(p.result.to_dict(), p.deal, p.seating, p.match, p.match_round) for p in report.rounds]
    return [rounds, report.matches, summarise(report).to_dict()]


@pytest.mark.parametrize(
    "options",
    [
        {"rounds": 150},  # blocks of 2 rounds: 75 Ray tasks, finishing in any order
        {"rounds": 12, "duplicate": True, "latency": NETWORK},
        {"rounds": 8, "bots": MIXED},
        {"matches": 5},
        {"matches": 2, "duplicate": True},
    ],
)
def test_ray_gives_the_rounds_matches_and_summary_of_two_worker_processes(
    local_ray: None, options: dict[str, Any]
) -> None:
    on_processes = run(config(workers=2, **options))
    on_ray = run(config(workers=2, ray="local", **options))
    assert results(on_ray) == results(on_processes)
    assert on_ray.config.workers == 2
    if "matches" in options:
        assert len(on_ray.matches) == options["matches"] * (4 if options.get("duplicate") else 1)


def test_tasks_in_flight_are_the_clusters_cpus_unless_given_and_never_change_the_results(local_ray: None) -> None:
    default = run(config(rounds=40, ray="local"))
    assert default.config.workers == 2  # the local Ray's two CPUs
    three = run(config(rounds=40, ray="local", workers=3))
    assert three.config.workers == 3
    assert results(default) == results(three) == results(run(config(rounds=40, workers=1)))


def test_the_progress_callback_on_ray_counts_every_task_in_order(local_ray: None) -> None:
    calls: list[tuple[int, int]] = []
    run(config(rounds=90, ray="local"), lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 90)
    assert calls[-1] == (90, 90)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    assert len(calls) > 2


class Turner(Strategy):
    """A strategy of the user's own, as ``--import`` registers one: it only ever turns its hand."""

    def choose(self, seen: Observation) -> Action | None:
        return next((a for a in seen.legal_actions() if isinstance(a, Turn)), None)


@pytest.fixture
def own_strategies() -> Iterator[None]:
    """This module's strategies registered, as ``--import`` registers a user's, for one test
    only (registered at import, they would stand in every other test's list of bots)."""
    register("turner_on_ray")(Turner)
    register("boom_on_ray")(Boom)
    yield
    for name in ("turner_on_ray", "boom_on_ray"):
        del STRATEGIES[name]


def test_a_users_own_strategy_is_sent_to_the_ray_workers(local_ray: None, own_strategies: None) -> None:
    # the Ray workers never imported this module: the strategy travels with the run
    on_ray = run(config("turner_on_ray:machine,smart:machine", 2, rounds=3, ray="local"))
    assert results(on_ray) == results(run(config("turner_on_ray:machine,smart:machine", 2, rounds=3, workers=1)))
    assert all(played.result.center[0] == 0 for played in on_ray.rounds)  # it never played a card


class Boom(Strategy):
    """A strategy that fails on a node."""

    def choose(self, seen: Observation) -> Action | None:
        raise ValueError("boom on a Ray node")


def test_an_error_in_a_ray_task_is_raised_here_as_its_own_type(local_ray: None, own_strategies: None) -> None:
    with pytest.raises(ValueError, match="boom on a Ray node"):
        run(config("smart:expert,boom_on_ray:machine", 2, rounds=40, ray="local"))
    assert results(run(config(rounds=4, ray="local"))) == results(run(config(rounds=4, workers=1)))  # Ray still serves


def test_a_ray_this_process_is_connected_to_is_left_running(local_ray: None) -> None:
    run(config(rounds=4, ray="local"))
    assert ray.is_initialized()


def test_without_ray_installed_the_run_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as if it were absent
    with pytest.raises(onray.RayError, match=r"pip install 'ligretto\[ray\]'"):
        run(config(rounds=4, ray="local"))


@pytest.mark.parametrize("address", ["nonsense", "host:", ":6379", "host:port", "10.0.0.5:70000", "ray://"])
def test_an_address_that_is_not_one_is_refused(address: str) -> None:
    with pytest.raises(onray.RayError, match="expected HOST:PORT"):
        onray.check_address(address)


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_an_address_where_nothing_answers_is_refused_at_once(scheme: str) -> None:
    address = f"{scheme}127.0.0.1:{closed_port()}"
    with pytest.raises(onray.RayError, match=r"no Ray cluster answers there \(Connection refused\)"):
        onray.check_address(address)


def test_a_bad_address_is_refused_even_with_a_ray_connected(local_ray: None) -> None:
    with pytest.raises(onray.RayError, match="no Ray cluster answers there"):
        run(config(rounds=4, ray=f"127.0.0.1:{closed_port()}"))
    assert ray.is_initialized()
