"""The replay document of a stored round (``ligretto.replay.fromstore``), from hand-made
store data of exactly the store's shape: rules dict, players, seed, actions with seat and
time (``None`` for actions stored before times were)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from replayrounds import played_log

from ligretto.engine import RuleSet
from ligretto.engine.scoring import round_seed
from ligretto.engine.serial import action_to_dict
from ligretto.replay import RoundRef, decode, encode, replay_of, verify


@dataclass(frozen=True)
class Stored:
    seat: int
    at: float | None
    action: dict[str, Any]


@dataclass(frozen=True)
class Log:
    rules: dict[str, Any]
    players: int
    seed: int
    actions: list[Stored] = field(default_factory=list)


STARTED = 1_700_000_000.0
SEED = round_seed(4242, 3)


def stored_round(*, timed: bool = True) -> Log:
    """A bots' round of three as the store would give it back, its times the server's clock."""
    rules = RuleSet()
    log = played_log(rules, 3, SEED)
    actions = [Stored(a.player, STARTED + t if timed and t is not None else None, action_to_dict(a)) for a, t in log]
    return Log(rules.to_dict(), 3, SEED, actions)


def test_a_stored_round_becomes_a_file_that_verifies() -> None:
    log = stored_round()
    doc = replay_of(log, ["Ann", "Bo", "Cy"], started=STARTED, where=RoundRef("ABCD", 1, 3))
    verified = verify(decode(encode(doc)))
    assert len(verified.frames) == len(log.actions)
    assert doc.seed == SEED and doc.round == RoundRef("ABCD", 1, 3)
    assert [step.t for step in doc.actions][:3] == [0.0, 0.25, 0.5]
    assert [s.name for s in doc.seats] == ["Ann", "Bo", "Cy"]
    assert doc.end.ending is not None


def test_actions_stored_without_a_time_still_verify() -> None:
    doc = replay_of(stored_round(timed=False), started=STARTED)
    assert all(step.t is None for step in doc.actions)
    assert [s.name for s in doc.seats] == ["Player 1", "Player 2", "Player 3"]
    assert verify(decode(encode(doc))).doc.end == doc.end


def test_a_stored_log_that_does_not_fit_is_refused() -> None:
    log = stored_round()
    with pytest.raises(ValueError, match="2 names for a round of 3 players"):
        replay_of(log, ["Ann", "Bo"])
    wrong = Log(log.rules, 3, SEED, [Stored((log.actions[0].seat + 1) % 3, None, log.actions[0].action)])
    with pytest.raises(ValueError, match="stored action 0 is by seat"):
        replay_of(wrong)
