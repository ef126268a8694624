"""A table's randomness is passed in: ``match_seeds(n)`` gives the seed of its n-th match,
every deal follows from it, and the seed is kept on the table (and in the store).  An
invite code is random too (and never reads as a command-line option)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from listeners import Quiet

from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import round_seed
from ligretto.engine.serial import state_to_dict
from ligretto.engine.state import Round
from ligretto.server.table.table import Table, new_code


def started(**options: Any) -> Table:
    table = Table("SEEDS", seats=2, countdown_s=60, **options)
    table.join(Quiet(), "Ann")
    table.join(Quiet(), "Bob")
    table.start(0)
    return table


def test_the_match_is_dealt_from_the_seed_the_table_was_given() -> None:
    asked: list[int] = []

    def seeds(number: int) -> int:
        asked.append(number)
        return 4242 + number

    async def scenario() -> None:
        table = started(match_seeds=seeds)
        assert asked == [1]
        assert table.match_seed == 4243
        assert table.match is not None and table.match.current is not None
        dealt = Round.deal(RuleSet(), 2, round_seed(4243, 1))
        assert state_to_dict(table.match.current) == state_to_dict(dealt)
        table.close()

    asyncio.run(scenario())


def test_without_seeds_every_table_draws_its_own() -> None:
    async def scenario() -> list[int]:
        tables = [started() for _ in range(3)]
        for table in tables:
            table.close()
        return [table.match_seed for table in tables]

    seeds = asyncio.run(scenario())
    assert len(set(seeds)) == 3
    assert all(0 <= seed < 2**62 for seed in seeds)


def test_an_invite_code_never_begins_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ligretto join --code -Ab3...`` would read the code as an option."""
    drawn = iter(["-MA1fWZHVjc", "-x_9kQe2Lm0", "MtdfXA5lMOA"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda _n: next(drawn))
    assert new_code() == "MtdfXA5lMOA"
    monkeypatch.undo()
    codes = [new_code() for _ in range(2000)]
    assert not any(code.startswith("-") for code in codes) and len(set(codes)) == 2000
