"""The ``ligretto`` command line: parses arguments and hands over to one module per command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ligretto.engine.rules import PRESETS, RuleError, RuleSet


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


def _add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default="classic", help=f"rule preset: {', '.join(PRESETS)} (default classic)")
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE", help="change one rule option"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ligretto", description="Ligretto, the real-time card game.")
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="play one seeded round between simple bots and print its score sheet")
    demo.add_argument("--players", type=int, default=4, help="2-12 players (default 4)")
    demo.add_argument("--seed", type=int, default=1, help="the round's seed (default 1)")
    demo.add_argument("--position", action="store_true", help="also print the final position")
    _add_rules_arguments(demo)

    bench = commands.add_parser("bench", help="measure the engine's speed")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--actions", type=int, default=300_000, help="actions per repeat (default 300000)")
    bench.add_argument("--repeats", type=int, default=5, help="repeats; the median is reported (default 5)")

    rules = commands.add_parser("rules", help="list the rule options and presets")
    rules.add_argument("--json", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            from ligretto import demo

            print(demo.run(rules_from_args(args.rules, args.settings), args.players, args.seed, args.position))
        elif args.command == "bench":
            from ligretto import bench

            report = bench.run(actions=args.actions, repeats=args.repeats)
            print(json.dumps(report, indent=2) if args.json else bench.format_report(report))
        elif args.command == "rules":
            _print_rules(args.json)
    except RuleError as error:
        print(f"ligretto: error: {error}", file=sys.stderr)
        return 2
    return 0


def _print_rules(as_json: bool) -> None:
    from ligretto.engine.rules import OPTIONS

    if as_json:
        print(json.dumps({"options": {n: o.allowed for n, o in OPTIONS.items()}, "presets": PRESETS}, indent=2))
        return
    default = RuleSet().to_dict()
    for name, option in OPTIONS.items():
        print(f"{name:16} {option.help}; {option.allowed} (classic: {default[name]})")
    print()
    for name, changes in PRESETS.items():
        print(f"{name:10} {', '.join(f'{k}={v}' for k, v in changes.items()) or 'every default'}")
