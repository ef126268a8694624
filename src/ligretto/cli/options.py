"""What every command of ``ligretto`` shares: its one-line errors and their exit codes, and
the rules as options (``--rules``, ``--set``); the numbers options take are ``numbers``.

Every error is one line on standard error, naming the command (docs/architecture.md,
"The command line's errors"):

- ``ligretto <command>: error: ...``, exit code 2: what was typed is wrong (an option, a
  value, a name, a code, a file given to read), whether ``ligretto`` or the server it asks
  finds it out; the same command fails again.
- ``ligretto <command>: ...``, exit code 1: something the command needs failed (a server
  that does not answer, a port in use, a database, Redis or Ray, output that cannot be
  written); the same command may work later.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn, TypeAlias

from ligretto.engine.rules import PRESETS, RuleError, RuleSet


class Parser(argparse.ArgumentParser):
    """Bad arguments give one line, ``ligretto <command>: error: ...``, and exit code 2 (no
    usage dump).

    Sub-command parsers are made with the parent's class (their ``prog`` is ``ligretto
    <command>``), so every command behaves alike.
    """

    def error(self, message: str) -> NoReturn:
        say_error(self.prog, message)
        raise SystemExit(2)

    def parse_known_args(  # type: ignore[override]  # typeshed's overloads: one form is used
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Arguments no option takes are refused by the command's own parser (argparse
        leaves them to the top one, which would say ``ligretto: error:``)."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


Commands: TypeAlias = "argparse._SubParsersAction[Parser]"
"""Where each command's module adds its parser."""


def say_error(prog: str, message: object) -> None:
    """A refusal of what was typed (exit code 2): ``ligretto <command>: error: ...``."""
    print(f"{prog}: error: {message}", file=sys.stderr)


def say_failure(prog: str, message: object) -> None:
    """A failure of what the command needs (exit code 1): ``ligretto <command>: ...``."""
    print(f"{prog}: {message}", file=sys.stderr)


class OutputError(ValueError):
    """An output file where none can be written, or a module to ``--import`` that does not
    import: refused before the command starts (exit code 2)."""


class UsageError(ValueError):
    """Options that do not go together or do not fit the table (e.g. ``--latency``)."""


class Failure(Exception):
    """Something the command needs failed or is not there (a server, Ray): exit code 1."""


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
