"""The replay document of a stored round (``ligretto.replay.fromstore``), from hand-made
store data of exactly the store's shape: rules dict, players, seed, actions with seat and
time (``None`` for actions stored before times were)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from replayrounds import played_log

from ligretto.engine import RuleSet
from ligretto.engine.scoring import round_seed
from ligretto.engine.serial import action_to_dict
from ligretto.replay import RoundRef, decode, encode, replay_of, verify


@dataclass(frozen=True)
class Player:
    """As ``server.store.RoundPlayer`` (h15-store)."""

    seat: int
    name: str
    bot: str | None


@dataclass(frozen=True)
class Stored:
    """As ``server.store.LoggedAction`` (h15-store)."""

    index: int
    at: float | None
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True)
class Log:
    """As ``server.store.RoundLog`` (h15-store)."""

    code: str
    match: int
    number: int
    rules: dict[str, Any]
    players: tuple[Player, ...]
    seed: int
    started: float
    actions: tuple[Stored, ...] = field(default_factory=tuple)


PLAYERS = (Player(1, "Bo", "smart:skilled"), Player(0, "Ann", None), Player(2, "Cy", None))
STARTED = 1_700_000_000.0
SEED = round_seed(4242, 3)


def stored_round(*, timed: bool = True) -> Log:
    """A bots' round of three as the store would give it back, its times the table's clock
    (the countdown of 3 s after ``started``)."""
    rules = RuleSet()
    log = played_log(rules, 3, SEED)
    actions = tuple(
        Stored(i, STARTED + 3 + t if timed and t is not None else None, a.player, action_to_dict(a))
        for i, (a, t) in enumerate(log)
    )
    return Log("ABCD", 1, 3, rules.to_dict(), PLAYERS, SEED, STARTED, actions)


def test_a_stored_round_becomes_a_file_that_verifies() -> None:
    log = stored_round()
    doc = replay_of(log)
    verified = verify(decode(encode(doc)))
    assert len(verified.frames) == len(log.actions)
    assert doc.seed == SEED and doc.round == RoundRef("ABCD", 1, 3)
    assert [step.t for step in doc.actions][:3] == [3.0, 3.25, 3.5], "from the store's start of the round"
    assert [s.name for s in doc.seats] == ["Ann", "Bo", "Cy"]
    assert doc.end.ending is not None
    assert [step.t for step in replay_of(log, start=STARTED + 3).actions][:2] == [0.0, 0.25], "from go"


def test_actions_stored_without_a_time_still_verify() -> None:
    doc = replay_of(stored_round(timed=False))
    assert all(step.t is None for step in doc.actions)
    assert verify(decode(encode(doc))).doc.end == doc.end


def test_a_stored_log_that_does_not_fit_is_refused() -> None:
    log = stored_round()
    with pytest.raises(ValueError, match=r"seats are \[0, 2\], not 0-1"):
        replay_of(replace(log, players=PLAYERS[1:]))
    first = log.actions[0]
    wrong = replace(log, actions=(replace(first, seat=(first.seat + 1) % 3),))
    with pytest.raises(ValueError, match="stored action 0 is by seat"):
        replay_of(wrong)
