"""The countdown's default is written once (``server.timing.COUNTDOWN_S``): the table, the
server's settings, ``ligretto serve``, the store's restore, the tutorial and local play
all take it from there."""

from __future__ import annotations

import inspect

from ligretto.cli import build_parser
from ligretto.server.app import Settings
from ligretto.server.store import SqliteStore
from ligretto.server.table import Table
from ligretto.server.timing import COUNTDOWN_S
from ligretto.server.tutorial import TutorialTable
from ligretto.terminal.local import LocalGame


def _default(function: object, name: str) -> object:
    return inspect.signature(function).parameters[name].default  # type: ignore[arg-type]


def test_every_countdown_default_is_the_one_constant() -> None:
    assert Settings().countdown_s == COUNTDOWN_S
    assert build_parser().parse_args(["serve"]).countdown == COUNTDOWN_S
    for function in (Table.__init__, TutorialTable.__init__, LocalGame.__init__, SqliteStore.load_tables):
        assert _default(function, "countdown_s") == COUNTDOWN_S, function


def test_a_table_counts_down_the_default_when_given_none() -> None:
    table = Table("DEFAULT", seats=2)
    assert table.countdown_s == COUNTDOWN_S
