"""``ligretto play`` and ``ligretto join``: check the arguments (for ``join``, that the
server has the table, or, with ``--queue``, a seat from the server's matchmaking queue),
then run the app."""

from __future__ import annotations

import asyncio

from ligretto.bots.spec import BotSpec, BotSpecError, parse_bots
from ligretto.engine.races import Fairness
from ligretto.engine.rules import RuleError, RuleSet
from ligretto.protocol import ProtocolError, check_name
from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.local import LocalGame
from ligretto.terminal.profiles import DEFAULT_SYMBOL, SYMBOLS, ProfileKeeper
from ligretto.terminal.queuewait import MAKE, QueueRefused, wait_in_queue
from ligretto.terminal.remote import RemoteTable, ws_url
from ligretto.terminal.screens import RulebookError, rules_text
from ligretto.terminal.serverapi import TABLE_S, ServerApi, Unavailable, UrlError, base_url


class ArgumentError(ValueError):
    """A bad command-line argument, said in one line."""


def local_app(
    rules: RuleSet,
    players: int,
    bots: str,
    *,
    seed: int | None,
    name: str,
    lang: str,
    arbitration: str | None = None,
    window_ms: int | None = None,
) -> LigrettoApp:
    """The app of a local match: the person and ``players - 1`` bots (one spec each, or one
    for all), races judged by ``arbitration`` with ``window_ms`` (the table's defaults: fair, 200)."""
    try:
        rules.row_length(players)
        specs = parse_bots(bots, players - 1)
        name = check_name(name)
        rules_text(lang)
        fairness = Fairness.of(arbitration, window_ms)
    except (RuleError, BotSpecError, ProtocolError, RulebookError) as error:
        raise ArgumentError(str(error)) from None
    except ValueError as error:
        raise ArgumentError(f"--arbitration/--window: {error}") from None
    return LigrettoApp(LocalGame(rules, specs, name=name, seed=seed, fairness=fairness), lang=lang)


def _checked_seat(url: str, name: str, *, bot: str, lang: str, symbol: str) -> str:
    """What a seat at a server's table is asked with, checked (``ArgumentError`` says what
    is wrong): the server's URL, the bot, the language, the back symbol; the name, as checked."""
    try:
        ws_url(url)
        name = check_name(name)
        BotSpec.parse(bot)
        rules_text(lang)
    except (UrlError, ProtocolError, BotSpecError, RulebookError) as error:
        raise ArgumentError(str(error)) from None
    if symbol not in SYMBOLS:
        raise ArgumentError(f"--symbol: a back symbol is one of {', '.join(SYMBOLS)}, not {symbol!r}")
    return name


def remote_app(url: str, code: str, name: str, *, bot: str, lang: str, symbol: str = DEFAULT_SYMBOL) -> LigrettoApp:
    """The app of a seat at a server table; ``bot`` is what the host's ``b`` key adds;
    ``symbol``: the back symbol of the server's profile if the join makes one.  A server
    that does not answer within ``TABLE_S`` is ``serverapi.Unavailable``."""
    name = _checked_seat(url, name, bot=bot, lang=lang, symbol=symbol)
    if not code.strip():
        raise ArgumentError("--code: the table's invite code is required")
    # The server is asked for the table before the app starts (a bounded wait): one that is
    # not running, or a code it does not know, is said at once, not by a client retrying.
    server = base_url(url)
    if not ServerApi(server, timeout=TABLE_S).table(code.strip()):
        raise ArgumentError(f"--code {code.strip()}: {server} has no table with that code")
    remote = RemoteTable(url, code.strip(), name, profiles=ProfileKeeper(url), symbol=symbol)
    return LigrettoApp(remote, lang=lang, bot=bot)


def queued_app(
    url: str,
    name: str,
    seats: int,
    *,
    bot: str,
    lang: str,
    symbol: str = DEFAULT_SYMBOL,
    party: str | None = None,
) -> LigrettoApp:
    """``join --queue``: wait in the server's matchmaking queue for a table of ``seats``
    (with the server's profile, whose rating counts), then the app of the seat it hands out.
    ``party``: ``queuewait.MAKE`` makes a party (``--party``), a code joins one (``--party CODE``)."""
    name = _checked_seat(url, name, bot=bot, lang=lang, symbol=symbol)
    if party is not None and party != MAKE and not party.strip():
        raise ArgumentError("--party: a party's code, or no value to make a party")
    profile, _ = ProfileKeeper(url).for_join(name, symbol)
    try:
        code = None if party is None else party.strip()
        seated = asyncio.run(wait_in_queue(url, name, seats, profile=profile, party=code))
    except QueueRefused as error:
        raise ArgumentError(f"--queue: {error}") from None
    except OSError as error:
        raise Unavailable(f"cannot reach {base_url(url)}: {error}") from None
    return remote_app(url, seated.code, name, bot=bot, lang=lang, symbol=symbol)
