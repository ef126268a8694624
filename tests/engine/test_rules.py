"""Rule sets (RULES.md §2-§8): options, their values, presets, JSON form and row lengths."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ligretto.engine import OPTIONS, PRESETS, MatchEnd, RuleError, RuleSet, Scoring, ShortTurn
from ligretto.engine.rules import MatchEndKind, OptionKind

# --- every option and every allowed value --------------------------------------------------

BOOL_VALUES = [(True, True), (False, False), ("true", True), ("false", False), ("True", True), ("FALSE", False)]

# (option, value as given, value the rule set holds).  Text values are what a command line gives.
ACCEPTED: list[tuple[str, Any, Any]] = [
    ("row_size", "classic", "classic"),
    ("row_size", "by_boxes", "by_boxes"),
    *(("row_size", n, n) for n in range(1, 6)),
    *(("row_size", str(n), n) for n in range(1, 6)),
    ("short_turn", "turn_remaining", ShortTurn.TURN_REMAINING),
    ("short_turn", "recycle", ShortTurn.RECYCLE),
    ("short_turn", ShortTurn.RECYCLE, ShortTurn.RECYCLE),
    *(
        (name, value, expected)
        for name in ("recycle_shuffle", "floor_at_zero", "expert")
        for value, expected in BOOL_VALUES
    ),
    *(("stack_penalty", n, n) for n in (0, 2, 3, 10)),
    *(("stack_penalty", str(n), n) for n in (0, 2, 3, 10)),
    ("scoring", "cards", Scoring.CARDS),
    ("scoring", "first_out", Scoring.FIRST_OUT),
    ("match_end", "target:100", "target:100"),
    ("match_end", "target:1", "target:1"),
    ("match_end", "rounds:1", "rounds:1"),
    ("match_end", "rounds:5", "rounds:5"),
    ("match_end", "rounds:1000", "rounds:1000"),
    ("match_end", "target:10000", "target:10000"),
    ("match_end", MatchEnd.parse("rounds:7"), "rounds:7"),
]


def held(rules: RuleSet, name: str) -> Any:
    """An option's value as held by the rule set (match_end compared in its text form)."""
    value = getattr(rules, name)
    return str(value) if name == "match_end" else value


@pytest.mark.parametrize(("name", "value", "expected"), ACCEPTED)
def test_every_allowed_value_is_accepted(name: str, value: Any, expected: Any) -> None:
    rules = RuleSet.from_dict({name: value})
    assert held(rules, name) == expected
    assert type(held(rules, name)) is type(expected)
    # The other options keep their classic values.
    classic = RuleSet()
    for other in OPTIONS:
        if other != name:
            assert getattr(rules, other) == getattr(classic, other)


@pytest.mark.parametrize(("name", "value", "expected"), ACCEPTED)
def test_every_allowed_value_is_accepted_by_replace(name: str, value: Any, expected: Any) -> None:
    assert held(RuleSet().replace(**{name: value}), name) == expected


def test_the_options_are_those_of_the_rule_book() -> None:
    assert list(OPTIONS) == [
        "row_size",
        "short_turn",
        "recycle_shuffle",
        "stack_penalty",
        "floor_at_zero",
        "scoring",
        "match_end",
        "expert",
    ]


def test_classic_defaults() -> None:
    rules = RuleSet()
    assert rules.row_size == "classic"
    assert rules.short_turn is ShortTurn.TURN_REMAINING
    assert rules.recycle_shuffle is True
    assert rules.stack_penalty == 2
    assert rules.floor_at_zero is False
    assert rules.scoring is Scoring.CARDS
    assert rules.expert is False


# --- bad values ----------------------------------------------------------------------------

# (option, bad value, words the message must contain to name the allowed values)
REJECTED: list[tuple[str, Any, tuple[str, ...]]] = [
    ("row_size", 0, ("classic", "by_boxes", "1-5")),
    ("row_size", 6, ("classic", "by_boxes", "1-5")),
    ("row_size", "6", ("classic", "by_boxes", "1-5")),
    ("row_size", "huge", ("classic", "by_boxes", "1-5")),
    ("row_size", True, ("classic", "by_boxes", "1-5")),
    ("row_size", 3.5, ("classic", "by_boxes", "1-5")),
    ("short_turn", "shuffle", ("turn_remaining", "recycle")),
    ("short_turn", "", ("turn_remaining", "recycle")),
    ("short_turn", None, ("turn_remaining", "recycle")),
    ("recycle_shuffle", "maybe", ("true", "false")),
    ("recycle_shuffle", 2, ("true", "false")),
    ("recycle_shuffle", None, ("true", "false")),
    ("floor_at_zero", "nope", ("true", "false")),
    ("floor_at_zero", 3, ("true", "false")),
    ("expert", "expert", ("true", "false")),
    ("expert", [], ("true", "false")),
    ("stack_penalty", -1, ("0-10",)),
    ("stack_penalty", 11, ("0-10",)),
    ("stack_penalty", "two", ("0-10",)),
    ("stack_penalty", "-1", ("0-10",)),
    ("stack_penalty", 2.5, ("0-10",)),
    ("stack_penalty", True, ("0-10",)),
    ("scoring", "points", ("cards", "first_out")),
    ("scoring", 1, ("cards", "first_out")),
    ("match_end", "target", ("target:N", "rounds:N")),
    ("match_end", "target:", ("target:N", "rounds:N")),
    ("match_end", "target:0", ("target:N", "rounds:N")),
    ("match_end", "rounds:0", ("target:N", "rounds:N")),
    ("match_end", "rounds:-3", ("target:N", "rounds:N")),
    ("match_end", "rounds:many", ("target:N", "rounds:N")),
    ("match_end", "points:100", ("target:N", "rounds:N")),
    ("match_end", 100, ("target:N", "rounds:N")),
    ("match_end", None, ("target:N", "rounds:N")),
    # bounds on every number (issue 13): the audit's match of 10^20 rounds, and digits
    # that str.isdigit() takes but int() does not (they once escaped as a bare ValueError)
    ("match_end", "rounds:99999999999999999999", ("'rounds:N' (N 1-1000)",)),
    ("match_end", "rounds:1001", ("'rounds:N' (N 1-1000)",)),
    ("match_end", "target:10001", ("'target:N' (N 1-10000)",)),
    ("match_end", "rounds:" + "9" * 5000, ("rounds:N",)),
    ("match_end", "rounds:\u00b2", ("rounds:N",)),
    ("match_end", "rounds:\u0663", ("rounds:N",)),
    ("match_end", MatchEnd(MatchEndKind.ROUNDS, 10**20), ("'rounds:N' (N 1-1000)",)),
    ("stack_penalty", "\u00b2", ("0-10",)),
    ("stack_penalty", "9" * 5000, ("0-10",)),
    ("row_size", "\u0663", ("1-5",)),
]


@pytest.mark.parametrize(("name", "value", "allowed"), REJECTED)
def test_a_bad_value_is_refused_naming_option_and_allowed_values(
    name: str, value: Any, allowed: tuple[str, ...]
) -> None:
    with pytest.raises(RuleError) as error:
        RuleSet.from_dict({name: value})
    message = str(error.value)
    assert repr(name) in message
    for word in allowed:
        assert word in message


@pytest.mark.parametrize(("name", "value", "allowed"), REJECTED)
def test_replace_refuses_a_bad_value(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    with pytest.raises(RuleError, match=name):
        RuleSet.preset("seed-es").replace(**{name: value})


@pytest.mark.parametrize(
    ("name", "value"),
    [("row_size", 6), ("row_size", "3"), ("stack_penalty", -2), ("recycle_shuffle", "false"), ("expert", 1)],
)
def test_the_constructor_validates_like_from_dict(name: str, value: Any) -> None:
    """Building a RuleSet directly takes typed values only and refuses bad ones with RuleError."""
    with pytest.raises(RuleError, match=name):
        RuleSet(**{name: value})


@pytest.mark.parametrize(
    ("name", "text", "typed", "written"),
    [
        ("scoring", "first_out", Scoring.FIRST_OUT, "Scoring.FIRST_OUT"),
        ("short_turn", "recycle", ShortTurn.RECYCLE, "ShortTurn.RECYCLE"),
        ("match_end", "target:100", MatchEnd.parse("target:100"), "MatchEnd.parse('target:100')"),
        ("expert", "true", True, "True"),
        ("row_size", "4", 4, "4"),
    ],
)
def test_the_constructor_refuses_a_good_value_written_as_text_saying_how_to_write_it(
    name: str, text: str, typed: Any, written: str
) -> None:
    """``RuleSet(scoring="first_out")``: the value is allowed, so the refusal must not say it
    is not; it names the typed value and the text entry points, which do accept it."""
    assert getattr(RuleSet(**{name: typed}), name) == typed
    with pytest.raises(RuleError) as error:
        RuleSet(**{name: text})
    message = str(error.value)
    assert repr(name) in message and written in message and repr(text) in message
    assert "bad value" not in message and "allowed values" not in message
    assert "from_dict" in message
    assert getattr(RuleSet.from_dict({name: text}), name) == typed
    assert getattr(RuleSet().replace(**{name: text}), name) == typed


@pytest.mark.parametrize(("name", "value"), [("scoring", "points"), ("short_turn", "shuffle"), ("expert", "maybe")])
def test_the_constructor_refuses_a_bad_value_listing_the_allowed_ones(name: str, value: str) -> None:
    with pytest.raises(RuleError) as error:
        RuleSet(**{name: value})
    message = str(error.value)
    assert f"bad value {value!r} for option {name!r}" in message
    assert OPTIONS[name].allowed in message


@pytest.mark.parametrize("source", ["from_dict", "replace"])
def test_an_unknown_option_is_refused_listing_the_options(source: str) -> None:
    with pytest.raises(RuleError) as error:
        if source == "from_dict":
            RuleSet.from_dict({"row_size": 4, "jokers": "true"})
        else:
            RuleSet().replace(jokers=True)
    message = str(error.value)
    assert "jokers" in message
    for name in OPTIONS:
        assert name in message


def test_a_rule_set_must_be_a_mapping() -> None:
    with pytest.raises(RuleError):
        RuleSet.from_dict(["row_size", 3])  # type: ignore[arg-type]


# --- presets (RULES.md §8) -----------------------------------------------------------------

CLASSIC: dict[str, Any] = {
    "row_size": "classic",
    "short_turn": ShortTurn.TURN_REMAINING,
    "recycle_shuffle": True,
    "stack_penalty": 2,
    "floor_at_zero": False,
    "scoring": Scoring.CARDS,
    "match_end": str(RuleSet().match_end),  # RULES.md gives no default for match_end: whatever classic has
    "expert": False,
}

PRESET_OPTIONS: dict[str, dict[str, Any]] = {
    "classic": CLASSIC,
    "seed-es": {**CLASSIC, "short_turn": ShortTurn.RECYCLE, "recycle_shuffle": False, "floor_at_zero": True},
    "seed-pt": {**CLASSIC, "row_size": "by_boxes", "match_end": "target:100"},
    "seed-it": {**CLASSIC, "row_size": "by_boxes", "match_end": "target:100"},
    "seed-fr": {**CLASSIC, "row_size": 5},
    "seed-fi": CLASSIC,
    "expert": {**CLASSIC, "expert": True},
}


def test_the_presets_are_those_of_the_rule_book() -> None:
    assert set(PRESETS) == set(PRESET_OPTIONS)


@pytest.mark.parametrize("preset", PRESET_OPTIONS)
def test_a_preset_has_exactly_the_options_of_the_rule_book(preset: str) -> None:
    rules = RuleSet.preset(preset)
    for name, expected in PRESET_OPTIONS[preset].items():
        assert held(rules, name) == expected, name
        assert type(held(rules, name)) is type(expected), name


def test_seed_es_in_detail() -> None:
    rules = RuleSet.preset("seed-es")
    assert rules.short_turn is ShortTurn.RECYCLE
    assert rules.recycle_shuffle is False
    assert rules.floor_at_zero is True
    assert rules.row_size == "classic"
    assert rules.stack_penalty == 2
    assert rules.scoring is Scoring.CARDS
    assert rules.expert is False
    assert rules.match_end == RuleSet().match_end


def test_seed_fi_is_classic() -> None:
    assert RuleSet.preset("seed-fi") == RuleSet.preset("classic") == RuleSet()


def test_match_end_targets_of_the_pt_and_it_presets() -> None:
    for preset in ("seed-pt", "seed-it"):
        match_end = RuleSet.preset(preset).match_end
        assert (match_end.kind, match_end.n) == ("target", 100)


@pytest.mark.parametrize("name", ["seed-de", "Classic", "", "expert "])
def test_an_unknown_preset_is_refused_listing_the_presets(name: str) -> None:
    with pytest.raises(RuleError) as error:
        RuleSet.preset(name)
    message = str(error.value)
    assert repr(name) in message
    for preset in PRESET_OPTIONS:
        assert preset in message


def test_starting_from_a_preset_and_changing_one_option() -> None:
    rules = RuleSet.preset("seed-pt").replace(stack_penalty="3")
    assert rules.stack_penalty == 3
    assert rules.row_size == "by_boxes"
    assert str(rules.match_end) == "target:100"


# --- JSON form -----------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESET_OPTIONS)
def test_to_dict_from_dict_round_trip(preset: str) -> None:
    rules = RuleSet.preset(preset)
    data = rules.to_dict()
    assert set(data) == set(OPTIONS)
    assert RuleSet.from_dict(data) == rules
    assert RuleSet.from_dict(json.loads(json.dumps(data))) == rules


@pytest.mark.parametrize("preset", PRESET_OPTIONS)
def test_to_dict_is_plain_json(preset: str) -> None:
    data = RuleSet.preset(preset).to_dict()
    assert json.loads(json.dumps(data)) == data
    for name, expected in PRESET_OPTIONS[preset].items():
        assert data[name] == expected


def test_round_trip_of_a_changed_rule_set() -> None:
    rules = RuleSet.preset("expert").replace(
        row_size="2", short_turn="recycle", recycle_shuffle="false", stack_penalty="3", floor_at_zero="true",
        scoring="first_out", match_end="target:50",
    )  # fmt: skip
    again = RuleSet.from_dict(json.loads(json.dumps(rules.to_dict())))
    assert again == rules
    assert again.row_size == 2
    assert again.expert is True
    assert str(again.match_end) == "target:50"


@pytest.mark.parametrize("name", OPTIONS)
def test_an_options_description_agrees_with_its_parser(name: str) -> None:
    """``Option.to_dict`` (what clients build their rule form from) offers exactly what
    parsing accepts: every listed value, the numbers at the bounds, not one beyond."""
    option = OPTIONS[name]
    data = option.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert (data["name"], data["type"], data["help"]) == (name, option.kind.value, option.help)
    assert data["default"] == RuleSet().to_dict()[name]
    if option.kind is OptionKind.CHOICE:
        assert [option.parse(value) for value in data["values"]] == data["values"]
    if option.kind is OptionKind.FLAG:
        assert [option.parse(value) for value in (True, False)] == [True, False]
    if option.kind is OptionKind.NUMBER:
        assert option.parse(data["min"]) == data["min"] and option.parse(data["max"]) == data["max"]
        for beyond in (data["min"] - 1, data["max"] + 1):
            with pytest.raises(RuleError):
                option.parse(beyond)
    if option.kind is OptionKind.MATCH_END:
        assert set(data["max"]) == set(data["values"])
        for kind in data["values"]:
            for n in (data["min"], data["max"][kind]):
                assert str(option.parse(f"{kind}:{n}")) == f"{kind}:{n}"
            for beyond in (data["min"] - 1, data["max"][kind] + 1):
                with pytest.raises(RuleError):
                    option.parse(f"{kind}:{beyond}")


def test_from_dict_fills_missing_options_with_classic() -> None:
    assert RuleSet.from_dict({}) == RuleSet()
    assert RuleSet.from_dict({"expert": "true"}) == RuleSet.preset("expert")


# --- replace -------------------------------------------------------------------------------


def test_replace_changes_only_the_named_options_and_leaves_the_original() -> None:
    es = RuleSet.preset("seed-es")
    changed = es.replace(row_size="by_boxes", recycle_shuffle="true")
    assert changed.row_size == "by_boxes"
    assert changed.recycle_shuffle is True
    assert changed.short_turn is ShortTurn.RECYCLE
    assert changed.floor_at_zero is True
    # The original is untouched (rule sets are immutable values).
    assert es == RuleSet.preset("seed-es")
    assert es.recycle_shuffle is False
    assert es.row_size == "classic"


def test_replace_without_options_is_an_equal_rule_set() -> None:
    rules = RuleSet.preset("seed-fr")
    assert rules.replace() == rules


def test_rule_sets_are_immutable() -> None:
    rules = RuleSet()
    with pytest.raises(AttributeError):
        rules.expert = True  # type: ignore[misc]


# --- row length (RULES.md §2) --------------------------------------------------------------

ROW_TABLE: dict[str | int, dict[int, int]] = {
    "classic": {2: 5, 3: 4, 4: 3, **dict.fromkeys(range(5, 9), 3), **dict.fromkeys(range(9, 13), 3)},
    "by_boxes": {2: 5, 3: 5, 4: 5, **dict.fromkeys(range(5, 9), 4), **dict.fromkeys(range(9, 13), 3)},
    **{n: dict.fromkeys(range(2, 13), n) for n in range(1, 6)},
}


@pytest.mark.parametrize("row_size", list(ROW_TABLE))
@pytest.mark.parametrize("players", range(2, 13))
def test_row_length_follows_the_table(row_size: str | int, players: int) -> None:
    assert RuleSet.from_dict({"row_size": row_size}).row_length(players) == ROW_TABLE[row_size][players]


@pytest.mark.parametrize("players", range(2, 13))
def test_row_length_of_a_fixed_size_given_as_text(players: int) -> None:
    assert RuleSet().replace(row_size="4").row_length(players) == 4


@pytest.mark.parametrize("players", [-1, 0, 1, 13, 20])
def test_row_length_refuses_a_bad_player_count(players: int) -> None:
    with pytest.raises(RuleError, match="2-12"):
        RuleSet().row_length(players)
