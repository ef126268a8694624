"""The numbers options take (``ligretto.cli.numbers``): what each reader takes and refuses."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pytest

from ligretto.cli.numbers import COUNT, PLAYERS, PORT, SEED, decimal, whole


@pytest.mark.parametrize(
    ("read", "text", "value"),
    [
        (COUNT, "1", 1),
        (COUNT, "300000", 300_000),
        (SEED, "0", 0),
        (SEED, "9" * 18, int("9" * 18)),
        (PLAYERS, "12", 12),
        (PORT, "65535", 65535),
        (whole(0, 250), "250", 250),
        (decimal(), "0", 0.0),
        (decimal(), "2.5", 2.5),
        (decimal(0.25, 8), "0.25", 0.25),
    ],
)
def test_a_number_as_typed_is_read(read: Callable[[str], float], text: str, value: float) -> None:
    assert read(text) == value


@pytest.mark.parametrize(
    ("read", "text", "says"),
    [
        (COUNT, "0", "must be at least 1, not 0"),
        (COUNT, "-3", "must be at least 1, not -3"),
        (SEED, "-1", "must be at least 0, not -1"),
        (SEED, "9" * 19, "expected a whole number"),  # more digits than the engine reads
        (PLAYERS, "13", "must be 2-12, not 13"),
        (PLAYERS, "four", "expected a whole number, not 'four'"),
        (PLAYERS, "４", "expected a whole number"),  # a digit to str.isdigit and to int, not one typed
        (PORT, "99999", "must be 1-65535, not 99999"),
        (PORT, "0", "must be 1-65535, not 0"),
        (COUNT, "1e3", "expected a whole number"),
        (COUNT, " 5", "expected a whole number"),
        (COUNT, "", "expected a whole number"),
        (decimal(), "-1", "must be at least 0, not -1"),
        (decimal(), "-0.5", "must be at least 0, not -0.5"),
        (decimal(), "nan", "expected a number such as 2.5, not 'nan'"),
        (decimal(), "inf", "expected a number"),
        (decimal(), "1e3", "expected a number"),
        (decimal(), "5.", "expected a number"),
        (decimal(), ".5", "expected a number"),
        (decimal(), "1.2.3", "expected a number"),
        (decimal(0.25, 8), "9", "must be 0.25-8, not 9"),
    ],
)
def test_anything_else_is_refused_saying_why(read: Callable[[str], float], text: str, says: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        read(text)
    assert says in str(refused.value)
