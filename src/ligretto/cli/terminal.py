"""The terminal client's commands (``ligretto.terminal``): ``play`` (a match against bots,
no server), ``join`` (a seat at a server's table) and ``profile`` (a profile on a server)."""

from __future__ import annotations

import argparse

from ligretto.cli.numbers import PLAYERS, SEED, whole
from ligretto.cli.options import Commands, Failure, UsageError, add_rules_arguments, rules_from_args
from ligretto.engine.races import DEFAULT_WINDOW_MS, MAX_WINDOW_MS


def add_play_parser(commands: Commands) -> None:
    play = commands.add_parser("play", help="play a match against bots in the terminal, no server needed")
    play.add_argument("--players", type=PLAYERS, default=4, help="2-12 players: you and the bots (default 4)")
    play.add_argument(
        "--bots",
        default="smart:skilled",
        metavar="SPEC",
        help="strategy:level per bot, or one for all (default smart:skilled)",
    )
    add_rules_arguments(play)
    play.add_argument("--seed", type=SEED, help="the match's seed, to play a deal again (default: random)")
    play.add_argument(
        "--arbitration",
        choices=("arrival", "fair"),
        help="how races for a pile are judged: fair (the default; docs/fairness.md) or by arrival",
    )
    play.add_argument(
        "--window",
        type=whole(0, MAX_WINDOW_MS),
        metavar="MS",
        help=f"fair: hold a contested play at most MS (0-{MAX_WINDOW_MS}, {DEFAULT_WINDOW_MS})",
    )
    play.add_argument("--name", default="You", help="your name at the table (default You)")
    play.add_argument("--lang", default="en", help="language of the rules on the help screen (default en)")


def add_server_parsers(commands: Commands) -> None:
    join = commands.add_parser("join", help="take a seat at a server table in the terminal")
    join.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    table = join.add_mutually_exclusive_group(required=True)
    table.add_argument("--code", help="the table's invite code")
    table.add_argument(
        "--queue", action="store_true", help="play with people: wait in the server's queue for a table (--seats)"
    )
    join.add_argument("--seats", type=whole(2, 12), default=4, help="with --queue: players at the table, 2-12 (4)")
    join.add_argument(
        "--party",
        nargs="?",
        const="",
        metavar="CODE",
        help="with --queue: make a party of friends (its code printed; Enter queues it), or join one by its CODE",
    )
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


def run_app(args: argparse.Namespace) -> int:
    """``play`` or ``join``: the arguments checked (for ``join``, with the server), then the
    Textual app run."""
    from ligretto.terminal import commands
    from ligretto.terminal.serverapi import Unavailable

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
        elif args.queue:
            seat = {"bot": args.bot, "lang": args.lang, "symbol": args.symbol, "party": args.party}
            app = commands.queued_app(args.url, args.name, args.seats, **seat)
        elif args.party is not None:
            raise UsageError("--party: only with --queue (a party queues together)")
        else:
            app = commands.remote_app(args.url, args.code, args.name, bot=args.bot, lang=args.lang, symbol=args.symbol)
    except commands.ArgumentError as error:
        raise UsageError(str(error)) from None
    except Unavailable as error:
        raise Failure(str(error)) from None
    app.run()
    return 0


def run_profile(args: argparse.Namespace) -> int:
    from ligretto.terminal import profilecmd
    from ligretto.terminal.serverapi import Refused, Unavailable, UrlError

    fields = ("url", "rename", "symbol", "link", "claim", "delete", "yes")
    try:
        profilecmd.run(profilecmd.Request(**{field: getattr(args, field) for field in fields}))
    except (profilecmd.ProfileCommandError, UrlError) as error:
        raise UsageError(str(error)) from None
    except Refused as error:  # e.g. a one-time code the server does not know
        raise UsageError(f"{error.message} ({error.code})") from None
    except Unavailable as error:
        raise Failure(str(error)) from None
    return 0
