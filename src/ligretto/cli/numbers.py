"""The numbers ``ligretto``'s options take, each an argparse ``type=``: read by the engine's
one reader of a number in text (``rules.whole_number``: ASCII digits alone, at most 18),
so ``1e3``, ``inf``, ``nan``, ``٣`` or thirty digits are refused as they are typed, in one
line (``ligretto demo: error: argument --seed: ...``, exit code 2), before a command runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ligretto.engine.cards import MAX_PLAYERS, MIN_PLAYERS
from ligretto.engine.rules import whole_number


def _signed(text: str) -> int | None:
    """A whole number with an optional leading minus (refused by the range, said as typed)."""
    number = whole_number(text.removeprefix("-"))
    return None if number is None else -number if text.startswith("-") else number


def _within(value: float, text: str, low: float, high: float | None) -> None:
    if high is not None and not low <= value <= high:
        raise argparse.ArgumentTypeError(f"must be {_said(low)}-{_said(high)}, not {text}")
    if value < low:
        raise argparse.ArgumentTypeError(f"must be at least {_said(low)}, not {text}")


def _said(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def whole(low: int = 0, high: int | None = None) -> Callable[[str], int]:
    """A whole number from ``low`` to ``high`` (``None``: no bound above)."""

    def read(text: str) -> int:
        value = _signed(text)
        if value is None:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}")
        _within(value, text, low, high)
        return value

    return read


def decimal(low: float = 0.0, high: float | None = None) -> Callable[[str], float]:
    """A number written ``12`` or ``2.5`` (digits, at most one point between digits) from
    ``low`` to ``high``: no exponent, ``inf`` or ``nan``."""

    def read(text: str) -> float:
        whole_part, point, fraction = text.partition(".")
        if _signed(whole_part) is None or (point and whole_number(fraction) is None):
            raise argparse.ArgumentTypeError(f"expected a number such as 2.5, not {text!r}")
        value = float(text)
        _within(value, text, low, high)
        return value

    return read


COUNT = whole(1)
"""How many of something to do: rounds, repeats, workers, tables (at least one)."""
SEED = whole()
"""A seed: a whole number, 0 or more."""
PLAYERS = whole(MIN_PLAYERS, MAX_PLAYERS)
"""Players at a table: 2-12."""
PORT = whole(1, 65535)
"""A TCP port to listen on."""
