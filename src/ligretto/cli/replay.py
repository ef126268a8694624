"""``ligretto replay FILE``: a round's replay file verified against the engine and played
back in the terminal as a spectator saw it (``ligretto.terminal.replayer``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ligretto.cli.numbers import decimal
from ligretto.cli.options import Commands, UsageError


def add_parser(commands: Commands) -> None:
    replay = commands.add_parser(
        "replay",
        help="verify a round's replay file against the engine and play it back as a spectator saw it",
        description="Verify a replay file (docs/clients.md, Replays) against the engine, then play the round back "
        "as a spectator saw it. A file that does not replay is refused (exit code 2) naming the first action "
        "that does not.",
    )
    replay.add_argument("file", type=Path, help="the replay file (.json), e.g. downloaded from a finished round")
    speed = "times the round's own pace, 0.25-8 (default 1)"
    replay.add_argument("--speed", type=decimal(0.25, 8), default=1.0, help=speed)
    replay.add_argument("--step", action="store_true", help="one action each time Enter is pressed")
    replay.add_argument(
        "--verify-only", action="store_true", help='only verify: print "verified: N actions, outcome ..."'
    )


def run(args: argparse.Namespace) -> int:
    from ligretto.replay import ReplayError
    from ligretto.terminal import replayer

    pace = replayer.Pace(speed=args.speed, step=args.step)
    try:
        replayer.run(args.file, verify_only=args.verify_only, pace=pace)
    except ReplayError as error:  # a file that does not replay, or none at all
        raise UsageError(f"{args.file}: {error}") from None
    return 0
