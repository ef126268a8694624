"""The ``ligretto`` command line (also ``python -m ligretto``): ``build_parser`` assembles
the commands' parsers, ``main`` hands over to the module of the command given.

One module per command or family of commands, each adding its parser and running it:
``demo`` (``demo``, ``rules``), ``bench``, ``simulate``, ``serve``, ``harness``
(``loadtest``, ``stress``), ``terminal`` (``play``, ``join``, ``profile``), ``replay``;
what they share (the one-line errors and their exit codes, the rules as options) is
``options``, the numbers options take ``numbers``.  Each imports what its command runs
only when it runs: a fast start-up.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from ligretto.bots.spec import BotSpecError
from ligretto.cli import bench, demo, harness, replay, serve, simulate, terminal
from ligretto.cli.options import Failure, OutputError, Parser, UsageError, rules_from_args, say_error, say_failure
from ligretto.engine.rules import RuleError

__all__ = ["build_parser", "main", "rules_from_args"]

RUN: dict[str, Callable[[argparse.Namespace], int]] = {
    "demo": demo.run_demo,
    "bench": bench.run,
    "rules": demo.run_rules,
    "simulate": simulate.run,
    "serve": serve.run,
    "play": terminal.run_app,
    "replay": replay.run,
    "join": terminal.run_app,
    "profile": terminal.run_profile,
}
"""Each command (but ``loadtest`` and ``stress``, handed over whole) and what runs it."""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="ligretto", description="Ligretto, the real-time card game.")
    commands = parser.add_subparsers(dest="command", required=True)
    # in the order of `ligretto -h`
    demo.add_demo_parser(commands)
    bench.add_parser(commands)
    demo.add_rules_parser(commands)
    simulate.add_parser(commands)
    serve.add_parser(commands)
    harness.add_parsers(commands)
    terminal.add_play_parser(commands)
    replay.add_parser(commands)
    terminal.add_server_parsers(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    handed = harness.hand_over(argv)
    if handed is not None:
        return handed
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # -h, or a bad argument already reported in one line
        return stop.code if isinstance(stop.code, int) else 2
    prog = f"ligretto {args.command}"
    try:
        return RUN[args.command](args)
    except (RuleError, BotSpecError, OutputError, UsageError) as error:
        say_error(prog, error)
        return 2
    except Failure as error:
        say_failure(prog, error)
        return 1
    except BrokenPipeError:  # the reader went away (`ligretto rules | head -1`): nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1
    except OSError as error:  # e.g. an output file that cannot be written after all (a full disk)
        say_failure(prog, f"{error.filename}: {error.strerror}" if error.filename and error.strerror else error)
        return 1
    except KeyboardInterrupt:
        say_failure(prog, "interrupted")
        return 130
