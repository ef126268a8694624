"""``ligretto loadtest`` and ``ligretto stress``: the harness (``ligretto.harness``), out of
the product's way, with parsers, options and help of its own; here only their lines in
``ligretto -h`` and the hand-over."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from ligretto.cli.options import Commands, Parser


def add_parsers(commands: Commands) -> None:
    loadtest = commands.add_parser(
        "loadtest", help="play many tables with real WebSocket clients and report latencies", add_help=False
    )
    loadtest.add_argument("args", nargs=argparse.REMAINDER)

    stress = commands.add_parser(
        "stress",
        help="the stress harness: every abuse scenario against a fresh server, and the figures",
        add_help=False,
    )
    stress.add_argument("args", nargs=argparse.REMAINDER)


def hand_over(argv: Sequence[str]) -> int | None:
    """Run ``loadtest`` or ``stress`` with the rest of ``argv``; ``None`` for any other command."""
    # each its own options and help, on the command line's parser (its one-line errors)
    if argv[:1] == ["loadtest"]:  # ligretto.harness.run
        loadtest = importlib.import_module("ligretto.harness.run")
        return int(loadtest.main(argv[1:], Parser(prog="ligretto loadtest", description=loadtest.DESCRIPTION)))
    if argv[:1] == ["stress"]:  # ligretto.harness.stressrun
        harness = importlib.import_module("ligretto.harness.stressrun")
        return int(harness.main(argv[1:], Parser(prog="ligretto stress", description=harness.__doc__)))
    return None
