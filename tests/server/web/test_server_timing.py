"""The countdown's default is written once (``server.timing.COUNTDOWN_S``): the table, the
server's settings, ``ligretto serve``, the store's restore, the tutorial and local play
all take it from there; so are the times after which a table ends and a restored round
stops waiting."""

from __future__ import annotations

import inspect

from ligretto.cli import build_parser
from ligretto.server.records.store import SqliteStore
from ligretto.server.table.table import Table
from ligretto.server.table.timing import ABANDONED_S, CATCH_UP_S, COUNTDOWN_S, DEFAULT_GRACE_S, DESERTED_S
from ligretto.server.web.settings import Settings
from ligretto.terminal.local import LocalGame


def _default(function: object, name: str) -> object:
    return inspect.signature(function).parameters[name].default  # type: ignore[arg-type]


def test_every_countdown_default_is_the_one_constant() -> None:
    assert Settings().countdown_s == COUNTDOWN_S
    assert build_parser().parse_args(["serve"]).countdown == COUNTDOWN_S
    for function in (Table.__init__, Table.tutorial, LocalGame.__init__, SqliteStore.load_tables):
        assert _default(function, "countdown_s") == COUNTDOWN_S, function


def test_a_table_counts_down_the_default_when_given_none() -> None:
    table = Table("DEFAULT", seats=2)
    assert table.countdown_s == COUNTDOWN_S


def test_the_ending_and_catch_up_figures_are_written_once() -> None:
    settings = Settings()
    assert (settings.abandoned_s, settings.deserted_s, settings.catch_up_s) == (ABANDONED_S, DESERTED_S, CATCH_UP_S)
    assert _default(Table.resume, "catch_up_s") == CATCH_UP_S
    assert CATCH_UP_S < DEFAULT_GRACE_S, "a person away after a restart gets the round back before a stand-in"
    assert DESERTED_S < ABANDONED_S
