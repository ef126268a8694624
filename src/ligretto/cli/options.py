"""What every command of ``ligretto`` shares: the one-line errors, the checks of numbers
given as options, and the rules as options (``--rules``, ``--set``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, TypeAlias

from ligretto.engine.rules import PRESETS, RuleError, RuleSet


class Parser(argparse.ArgumentParser):
    """Bad arguments give one line, ``ligretto: error: ...``, and exit code 2 (no usage dump).

    Sub-command parsers are made with the parent's class, so every command behaves alike.
    """

    def error(self, message: str) -> NoReturn:
        say_error(message)
        raise SystemExit(2)


Commands: TypeAlias = "argparse._SubParsersAction[Parser]"
"""Where each command's module adds its parser."""


def say_error(message: object) -> None:
    """The one form of every refusal: ``ligretto: error: ...`` on standard error."""
    print(f"ligretto: error: {message}", file=sys.stderr)


class OutputError(ValueError):
    """An output file that cannot be written."""


class UsageError(ValueError):
    """Options that do not go together or do not fit the table (e.g. ``--latency``)."""


def not_negative(kind: type[int] | type[float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not 0 <= value < float("inf"):
            raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
        return value

    return parse


def at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def rules_from_args(preset: str, settings: Sequence[str]) -> RuleSet:
    """A preset with ``option=value`` overrides, e.g. ``--rules seed-es --set stack_penalty=3``."""
    rules = RuleSet.preset(preset)
    changes = {}
    for setting in settings:
        name, sep, value = setting.partition("=")
        if not sep:
            raise RuleError(f"bad --set {setting!r}: expected option=value")
        changes[name.strip()] = value.strip()
    return rules.replace(**changes) if changes else rules


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default="classic", help=f"rule preset: {', '.join(PRESETS)} (default classic)")
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE", help="change one rule option"
    )
