"""Naming bots: ``strategy:level`` per seat (``ligretto.bots.spec.parse_bots``)."""

from __future__ import annotations

import pytest

from ligretto.bots import LEVELS, STRATEGIES, BotSpec, BotSpecError, SmartStrategy, parse_bots


def specs(*texts: str) -> list[BotSpec]:
    return [BotSpec(*text.split(":")) for text in texts]


def test_one_spec_names_a_strategy_and_a_level() -> None:
    bot = parse_bots("smart:expert", 2)[0]
    assert bot == BotSpec("smart", "expert")
    assert bot.strategy_class is SmartStrategy
    assert bot.reaction is LEVELS["expert"]
    assert str(bot) == "smart:expert"


@pytest.mark.parametrize("players", range(2, 13))
def test_one_spec_fills_every_seat(players: int) -> None:
    assert parse_bots("smart:expert", players) == specs(*["smart:expert"] * players)


@pytest.mark.parametrize(
    ("text", "players", "expected"),
    [
        ("smart:expert,greedy:casual", 2, specs("smart:expert", "greedy:casual")),
        (" smart:expert , greedy:casual ", 2, specs("smart:expert", "greedy:casual")),
        (
            "random:machine,smart:beginner,greedy:skilled",
            3,
            specs("random:machine", "smart:beginner", "greedy:skilled"),
        ),
        (
            "greedy:casual*3,random:machine",
            4,
            specs("greedy:casual", "greedy:casual", "greedy:casual", "random:machine"),
        ),
        ("smart:expert*2,greedy:expert*2", 4, specs("smart:expert", "smart:expert", "greedy:expert", "greedy:expert")),
        ("smart:expert*12", 12, specs(*["smart:expert"] * 12)),
    ],
)
def test_specs_per_seat(text: str, players: int, expected: list[BotSpec]) -> None:
    assert parse_bots(text, players) == expected


def test_a_spec_without_level_takes_a_default_level() -> None:
    bots = parse_bots("greedy*3,random:machine", 4)
    assert [b.strategy for b in bots] == ["greedy", "greedy", "greedy", "random"]
    assert bots[3].level == "machine"
    assert len({b.level for b in bots[:3]}) == 1
    assert bots[0].level in LEVELS and bots[0].level != "machine"


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("level", list(LEVELS))
def test_every_strategy_and_level_round_trips(strategy: str, level: str) -> None:
    bots = parse_bots(f"{strategy}:{level},smart:casual", 2)
    assert bots[0] == BotSpec(strategy, level)
    assert parse_bots(",".join(str(b) for b in bots), 2) == bots
    assert bots[0].strategy_class is STRATEGIES[strategy]


def test_errors_are_value_errors() -> None:
    assert issubclass(BotSpecError, ValueError)


@pytest.mark.parametrize(
    ("text", "players", "words"),
    [
        ("clever:expert", 2, ["unknown strategy", "'clever'", "random", "greedy", "smart"]),
        ("smart:expert,Smart:expert", 2, ["unknown strategy", "'Smart'"]),
        ("", 2, ["unknown strategy"]),
        ("smart:godlike", 2, ["unknown level", "'godlike'", "beginner", "expert", "machine"]),
        ("smart:expert,greedy:fast", 2, ["unknown level", "'fast'"]),
        ("smart:expert,greedy:casual,random", 2, ["3 bots", "2 players"]),
        ("smart:expert,greedy:casual", 4, ["2 bots", "4 players"]),
        ("greedy:casual*3", 4, ["3 bots", "4 players"]),
        ("greedy*5", 4, ["5 bots", "4 players"]),
        ("greedy*0", 4, ["bad repeat", "'0'"]),
        ("greedy*x", 4, ["bad repeat", "'x'"]),
        ("greedy*-1", 4, ["bad repeat", "'-1'"]),
        ("greedy*2.5,smart", 4, ["bad repeat", "'2.5'"]),
        ("greedy*", 4, ["bad repeat"]),
        ("greedy*2*2", 4, ["bad repeat"]),
        ("greedy*²", 4, ["bad repeat", "'²'"]),  # a digit to str.isdigit, no number to int()
        ("greedy*１", 4, ["bad repeat"]),
        ("greedy*" + "9" * 4301, 4, ["bad repeat"]),  # over int()'s digit limit
    ],
)
def test_bad_specs_raise_clear_errors(text: str, players: int, words: list[str]) -> None:
    with pytest.raises(BotSpecError) as error:
        parse_bots(text, players)
    message = str(error.value)
    for word in words:
        assert word in message, f"{message!r} should mention {word!r}"
