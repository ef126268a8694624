"""The ``ligretto`` command line: parses arguments and hands over to one module per command."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from ligretto.bots.spec import BotSpecError, parse_bots
from ligretto.engine.races import CAP_MS, DEFAULT_WINDOW_MS, MAX_WINDOW_MS
from ligretto.engine.rules import PRESETS, RuleError, RuleSet
from ligretto.protocol.limits import HELLO_S, LOBBY_TABLES
from ligretto.server.table.timing import COUNTDOWN_S
from ligretto.server.web import limits


class _Parser(argparse.ArgumentParser):
    """Bad arguments give one line, ``ligretto: error: ...``, and exit code 2 (no usage dump).

    Sub-command parsers are made with the parent's class, so every command behaves alike.
    """

    def error(self, message: str) -> NoReturn:
        print(f"ligretto: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _not_negative(kind: type[int] | type[float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not 0 <= value < float("inf"):
            raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
        return value

    return parse


LIMITS: tuple[tuple[str, str, type[int] | type[float], float, str], ...] = (
    ("--hello-timeout", "hello_s", float, HELLO_S, "seconds a connection has to join a table"),
    ("--max-connections", "max_connections", int, limits.MAX_CONNECTIONS, "open WebSockets in all"),
    (
        "--connections-per-address",
        "connections_per_address",
        int,
        limits.CONNECTIONS_PER_ADDRESS,
        "open WebSockets from one address",
    ),
    (
        "--tables-per-minute",
        "tables_per_minute",
        int,
        limits.TABLES_PER_MINUTE,
        "tables one address may create a minute",
    ),
    ("--lobby-tables", "lobby_tables", int, LOBBY_TABLES, "tables in a lobby list at most"),
    (
        "--request-timeout",
        "request_timeout_s",
        float,
        limits.REQUEST_TIMEOUT_S,
        "seconds an HTTP request may take to arrive whole",
    ),
)
"""``ligretto serve``'s admission limits (docs/protocol.md, Limits): option, ``Settings``
field, type, default, help.  0 turns a limit off."""


def _at_least_one(text: str) -> int:
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


def _add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default="classic", help=f"rule preset: {', '.join(PRESETS)} (default classic)")
    parser.add_argument(
        "--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE", help="change one rule option"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ligretto", description="Ligretto, the real-time card game.")
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="play one seeded round between simple bots and print its score sheet")
    demo.add_argument("--players", type=int, default=4, help="2-12 players (default 4)")
    demo.add_argument("--seed", type=int, default=1, help="the round's seed (default 1)")
    demo.add_argument("--position", action="store_true", help="also print the final position")
    _add_rules_arguments(demo)

    _add_bench_parser(commands)

    rules = commands.add_parser("rules", help="list the rule options and presets")
    rules.add_argument("--json", action="store_true")

    _add_simulate_parser(commands)
    _add_server_parsers(commands)
    _add_terminal_parsers(commands)
    return parser


def _add_bench_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    bench = commands.add_parser(
        "bench",
        help="measure the engine's speed (and, only with --only fairness, races over real WebSockets)",
        description="Without --only: the engine and simulator figures (docs/benchmarks.md). The fairness"
        " benchmark (docs/fairness.md) takes minutes and runs only with --only fairness.",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--actions", type=int, default=300_000, help="actions per repeat (default 300000)")
    bench.add_argument(
        "--repeats", type=int, default=5, help="repeats of each figure; median and best reported (default 5)"
    )
    bench.add_argument(
        "--sim-rounds",
        type=_at_least_one,
        help="simulated rounds per repeat of the simulator figures (default: --actions / 75, i.e. 4000)",
    )
    only = "measure only the engine, the simulator, or races over WebSockets (minutes; not in a plain bench)"
    bench.add_argument("--only", choices=("engine", "sim", "fairness"), help=only)
    fair = bench.add_argument_group("--only fairness")
    fair.add_argument("--races", type=_at_least_one, help="races per judging mode (default 1200: about ±0.03)")
    fair.add_argument("--tables", type=_at_least_one, help="two-seat tables per mode, all at once (default 80)")
    fair.add_argument(
        "--window",
        type=int,
        metavar="MS",
        help=f"the fair window in ms, 0-{MAX_WINDOW_MS} (default {DEFAULT_WINDOW_MS})",
    )
    fair.add_argument("--near-ms", type=_not_negative(float), help="the near client's one-way delay (default 10)")
    fair.add_argument("--far-ms", type=_not_negative(float), help="the far client's one-way delay (default 100)")
    fair.add_argument("--jitter-ms", type=_not_negative(float), help="each way's jitter, U(0, ms) (default 0)")
    fair.add_argument("--level", help="the bots' level (default skilled; the strategy is smart)")
    fair.add_argument("--lie-ms", type=_not_negative(float), help="how early the liar stamps (default 500)")
    fair.add_argument("--quick", action="store_true", help="a smoke run: 4 tables, 20 races, bots 4 times faster")


DEFAULT_ROUNDS = 1000


def _bench(args: argparse.Namespace) -> None:
    if args.only == "fairness":
        from ligretto.harness import fairness

        try:
            settings = fairness.settings_from(vars(args))
        except ValueError as error:
            raise _UsageError(str(error)) from None
        report = fairness.run(settings)
        print(json.dumps(report, indent=2) if args.json else fairness.format_report(report))
        return
    from ligretto import bench

    report = bench.run(actions=args.actions, repeats=args.repeats, sim_rounds=args.sim_rounds, only=args.only)
    print(json.dumps(report, indent=2) if args.json else bench.format_report(report))


def _add_simulate_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    simulate = commands.add_parser(
        "simulate",
        help="let bots play many rounds or matches in virtual time and report statistics",
        description="Let bots play many seeded rounds or matches in virtual time (see docs/simulator.md).",
    )
    simulate.add_argument("--players", type=int, default=4, help="2-12 players (default 4)")
    amount = simulate.add_mutually_exclusive_group()
    amount.add_argument("--rounds", type=_at_least_one, help="deals to play (default 1000)")
    amount.add_argument("--matches", type=_at_least_one, help="matches to play, each until the rules' match_end")
    simulate.add_argument(
        "--bots",
        default="smart:skilled",
        metavar="SPEC",
        help="strategy:level per seat, comma-separated, or one for every seat (default smart:skilled)",
    )
    _add_rules_arguments(simulate)
    simulate.add_argument("--seed", type=int, default=1, help="master seed (default 1)")
    simulate.add_argument(
        "--workers", type=_at_least_one, help="worker processes (default: all cores); with --ray: Ray tasks in flight"
    )
    simulate.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="play on Ray: a local Ray started for the run, or the cluster at ADDRESS (HOST:PORT, auto,"
        " ray://HOST:PORT); the same results as worker processes (needs ligretto[ray])",
    )
    simulate.add_argument("--duplicate", action="store_true", help="replay every deal with the bots rotated")
    simulate.add_argument(
        "--latency",
        metavar="MS",
        help="one-way network delay per seat in ms, comma-separated, or one for all (default: none)",
    )
    simulate.add_argument("--jitter", metavar="MS", help="each message's extra delay U(0, MS) per seat, or one for all")
    simulate.add_argument(
        "--arbitration",
        choices=("arrival", "fair"),
        help="how races for a pile are judged: by arrival, or fair (compensated for delay; docs/fairness.md)",
    )
    simulate.add_argument(
        "--window", type=float, metavar="MS", help=f"fair: hold a contested play at most MS ({DEFAULT_WINDOW_MS})"
    )
    simulate.add_argument(
        "--cap", type=float, metavar="MS", help=f"fair: credit each seat at most MS of one-way delay ({CAP_MS})"
    )
    simulate.add_argument("--json", type=Path, metavar="FILE", help="write config, every round and the summary")
    simulate.add_argument("--csv", type=Path, metavar="FILE", help="write one row per round per seat")
    simulate.add_argument("--plot", type=Path, metavar="FILE.png", help="write score and round-length plots")
    simulate.add_argument("--quiet", action="store_true", help="no progress bar")
    simulate.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import a module first (one that registers your own strategies)",
    )


def _add_server_parsers(commands: argparse._SubParsersAction[_Parser]) -> None:
    serve = commands.add_parser("serve", help="run the multiplayer server (WebSocket, HTTP API, browser client)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--db",
        default="ligretto.db",
        help="the store: an SQLite file, created on first start (default ligretto.db), "
        "or a PostgreSQL database by URL (postgresql://USER:PASSWORD@HOST:PORT/NAME), which processes may share",
    )
    serve.add_argument(
        "--countdown",
        type=float,
        default=COUNTDOWN_S,
        help=f"seconds of countdown before a round (default {COUNTDOWN_S:g})",
    )
    serve.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    serve.add_argument(
        "--redis",
        metavar="URL",
        help="redis://HOST:PORT/N: one of several processes serving as one service (docs/deploy.md)",
    )
    serve.add_argument(
        "--advertise",
        metavar="URL",
        help="with --redis: the address the other processes reach this one at (default http://HOST:PORT)",
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        metavar="IPS",
        default="127.0.0.1",
        help="comma-separated addresses (or *) of the proxies and fellow processes whose X-Forwarded-For"
        " is believed: the per-address limits then count the client's own address (default 127.0.0.1)",
    )
    for option, field, kind, default, text in LIMITS:
        serve.add_argument(
            option,
            dest=field,
            type=_not_negative(kind),
            default=default,
            help=f"{text} (default {default:g}; 0: no limit)",
        )
    serve.add_argument(
        "--log-format", default="text", choices=("text", "json"), help="json: one JSON object per line (default text)"
    )

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


def _add_terminal_parsers(commands: argparse._SubParsersAction[_Parser]) -> None:
    play = commands.add_parser("play", help="play a match against bots in the terminal, no server needed")
    play.add_argument("--players", type=int, default=4, help="2-12 players: you and the bots (default 4)")
    play.add_argument(
        "--bots",
        default="smart:skilled",
        metavar="SPEC",
        help="strategy:level per bot, or one for all (default smart:skilled)",
    )
    _add_rules_arguments(play)
    play.add_argument("--seed", type=int, help="the match's seed, to play a deal again (default: random)")
    play.add_argument(
        "--arbitration",
        choices=("arrival", "fair"),
        help="how races for a pile are judged: fair (the default; docs/fairness.md) or by arrival",
    )
    play.add_argument(
        "--window",
        type=int,
        metavar="MS",
        help=f"fair: hold a contested play at most MS (0-{MAX_WINDOW_MS}, {DEFAULT_WINDOW_MS})",
    )
    play.add_argument("--name", default="You", help="your name at the table (default You)")
    play.add_argument("--lang", default="en", help="language of the rules on the help screen (default en)")

    _add_replay_parser(commands)

    join = commands.add_parser("join", help="take a seat at a server table in the terminal")
    join.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    join.add_argument("--code", required=True, help="the table's invite code")
    join.add_argument("--name", required=True, help="your name at the table")
    join.add_argument("--bot", default="smart:skilled", metavar="SPEC", help="the bot the host's b key adds")
    join.add_argument("--lang", default="en", help="language of the rules on the help screen (default en)")
    join.add_argument("--symbol", default="sun", help="the back symbol of the profile the first join makes (sun)")

    profile = commands.add_parser("profile", help="your profile on a server: show, rename, link, claim, delete")
    profile.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    profile.add_argument("--rename", metavar="NAME", help="a new display name")
    profile.add_argument("--symbol", help="a new back symbol: sun, moon, star or heart")
    profile.add_argument("--link", action="store_true", help="a one-time code and link for another device")
    profile.add_argument("--claim", metavar="CODE", help="take the profile of another device's one-time code")
    profile.add_argument("--delete", action="store_true", help="delete the profile for good (asks first)")
    profile.add_argument("--yes", action="store_true", help="--delete without asking")


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.25 <= value <= 8:
        raise argparse.ArgumentTypeError(f"must be 0.25-8: {text!r}")
    return value


def _add_replay_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    replay = commands.add_parser(
        "replay",
        help="verify a round's replay file against the engine and play it back as a spectator saw it",
        description="Verify a replay file (docs/clients.md, Replays) against the engine, then play the round back "
        "as a spectator saw it. A file that does not replay is refused (exit code 2) naming the first action "
        "that does not.",
    )
    replay.add_argument("file", type=Path, help="the replay file (.json), e.g. downloaded from a finished round")
    replay.add_argument("--speed", type=_speed, default=1.0, help="times the round's own pace, 0.25-8 (default 1)")
    replay.add_argument("--step", action="store_true", help="one action each time Enter is pressed")
    replay.add_argument(
        "--verify-only", action="store_true", help='only verify: print "verified: N actions, outcome ..."'
    )


def _replay(args: argparse.Namespace) -> int:
    from ligretto.terminal import replayer

    pace = replayer.Pace(speed=args.speed, step=args.step)
    return replayer.run(args.file, verify_only=args.verify_only, pace=pace)


def _terminal(args: argparse.Namespace) -> int:
    from ligretto.terminal import commands

    try:
        if args.command == "play":
            rules = rules_from_args(args.rules, args.settings)
            app = commands.local_app(
                rules,
                args.players,
                args.bots,
                seed=args.seed,
                name=args.name,
                lang=args.lang,
                arbitration=args.arbitration,
                window_ms=args.window,
            )
        else:
            app = commands.remote_app(args.url, args.code, args.name, bot=args.bot, lang=args.lang, symbol=args.symbol)
    except commands.ArgumentError as error:
        print(f"ligretto: error: {error}", file=sys.stderr)
        return 2
    app.run()
    return 0


def _simulate(args: argparse.Namespace) -> None:
    from ligretto.sim import report
    from ligretto.sim.network import LatencyError, latency_from_ms
    from ligretto.sim.runner import SimConfig, SimConfigError

    # every check before the first round, so a typo never costs a long run
    for module in args.imports:
        try:
            importlib.import_module(module)
        except ImportError as error:
            raise _OutputError(f"--import {module}: {error}") from None
    rules = rules_from_args(args.rules, args.settings)
    rules.row_length(args.players)  # 2-12 players
    bots = parse_bots(args.bots, args.players)
    try:
        latency = latency_from_ms(
            args.players,
            args.latency,
            jitter=args.jitter,
            arbitration=args.arbitration,
            window=args.window,
            cap=args.cap,
        )
    except LatencyError as error:
        raise _UsageError(str(error)) from None
    for option in ("json", "csv", "plot"):
        path: Path | None = getattr(args, option)
        if path is not None and not path.parent.is_dir():
            raise _OutputError(f"--{option} {path}: no such directory {str(path.parent)!r}")
    config = SimConfig(
        rules=rules,
        bots=tuple(bots),
        rounds=None if args.matches is not None else args.rounds or DEFAULT_ROUNDS,
        matches=args.matches,
        seed=args.seed,
        duplicate=args.duplicate,
        workers=args.workers,
        latency=latency,
        ray=args.ray,
    )
    try:
        report.simulate(config, json_path=args.json, csv_path=args.csv, plot_path=args.plot, quiet=args.quiet)
    except SimConfigError as error:  # e.g. --ray with an address where no Ray answers
        raise _UsageError(str(error)) from None


class _OutputError(ValueError):
    """An output file that cannot be written."""


class _UsageError(ValueError):
    """Options that do not go together or do not fit the table (e.g. ``--latency``)."""


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["loadtest"]:  # its own parser, options and help (ligretto.harness)
        loadtest = importlib.import_module("ligretto.harness")
        return int(loadtest.main(argv[1:]))
    if argv[:1] == ["stress"]:  # its own parser, options and help (ligretto.harness.stressrun)
        harness = importlib.import_module("ligretto.harness.stressrun")
        return int(harness.main(argv[1:], _Parser(prog="ligretto stress", description=harness.__doc__)))
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # -h, or a bad argument already reported in one line
        return stop.code if isinstance(stop.code, int) else 2
    try:
        if args.command == "demo":
            from ligretto import demo

            print(demo.run(rules_from_args(args.rules, args.settings), args.players, args.seed, args.position))
        elif args.command == "bench":
            _bench(args)
        elif args.command == "rules":
            _print_rules(args.json)
        elif args.command == "simulate":
            _simulate(args)
        elif args.command == "serve":
            from ligretto.server.web.serve import run
            from ligretto.server.web.settings import Settings

            given = {field: getattr(args, field) for _, field, _, _, _ in LIMITS}
            run(
                Settings(
                    args.host,
                    args.port,
                    args.db,
                    countdown_s=args.countdown,
                    redis=args.redis,
                    advertise=args.advertise,
                    forwarded_allow_ips=args.forwarded_allow_ips,
                    **given,
                ),
                args.log_level,
                args.log_format,
            )
        elif args.command == "replay":
            return _replay(args)
        elif args.command in ("play", "join"):
            return _terminal(args)
        elif args.command == "profile":
            from ligretto.terminal import profilecmd

            fields = ("url", "rename", "symbol", "link", "claim", "delete", "yes")
            return profilecmd.run(profilecmd.Request(**{field: getattr(args, field) for field in fields}))
    except (RuleError, BotSpecError, _OutputError, _UsageError) as error:
        print(f"ligretto: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`ligretto rules | head -1`): nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1
    except OSError as error:  # e.g. an output file that cannot be written
        print(f"ligretto: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("ligretto: interrupted", file=sys.stderr)
        return 130
    return 0


def _print_rules(as_json: bool) -> None:
    from ligretto.engine.rules import OPTIONS

    if as_json:
        print(json.dumps({"options": {n: o.allowed for n, o in OPTIONS.items()}, "presets": PRESETS}, indent=2))
        return
    # Values as they are written on the command line (`--set expert=true`), not as Python prints them.
    default = RuleSet().to_dict()
    for name, option in OPTIONS.items():
        print(f"{name:16} {option.help}; {option.allowed} (classic: {option.text(default[name])})")
    print()
    for name, changes in PRESETS.items():
        settings = ", ".join(f"{k}={OPTIONS[k].text(v)}" for k, v in changes.items())
        print(f"{name:10} {settings or 'every default'}")
