"""The score sheet on screen, after each round and at the end of the match: every round's
score, the last round's center and stack counts, the running totals, what to do next,
and the link to the round's replay (at a server that keeps them)."""

from __future__ import annotations

import math

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text

from ligretto.terminal.model import Phase, TableModel
from ligretto.terminal.sheet import SheetRound
from ligretto.terminal.widgets import AtWidth, TableWidget, literal
from ligretto.terminal.words import fit, plural, together

ENDINGS = {
    "stop": "Ligretto Stop",
    "stalemate_vote": "stalemate (vote)",
    "stalemate_proven": "stalemate (no play left)",
}
NAME_ROOM = 16
"""Cells a name keeps on the sheet before earlier rounds are left out for it."""
MIN_NAME = 8
"""The narrowest a name is cut to (``Smar… 10``)."""
CELL_EDGES = 3
"""Cells each column adds to its widest cell: a space either side and a border."""


class ScoreSheetView(TableWidget):
    """The score sheet and, under it, what comes next and the round's replay."""

    def draw(self, model: TableModel, now: float) -> RenderableType:
        if not model.sheet:
            return Text("")
        rounds = tuple(model.sheet)
        last, number = rounds[-1], len(rounds)
        stopper = f" by {who(model, last.stopped_by)}" if last.stopped_by is not None else ""
        ending = ENDINGS.get(last.ending, last.ending)
        title = literal(f"Score sheet: round {number} ended with {ending}{stopper}", "bold")
        names = [(model.name(seat), you_mark(model, seat)) for seat in range(len(last.lines))]
        parts: list[RenderableType] = [
            title,
            AtWidth(lambda width: sheet_table(rounds, names, width)),
            literal(footer(model, now), "bold"),
        ]
        link = model.replay_link
        if link is not None:
            parts.append(Text(f"Replay of round {number}: ").append(link, style=Style(link=link, underline=True)))
        standings = model.tournament_link
        if standings is not None:
            parts.append(
                Text("The tournament's standings: ").append(standings, style=Style(link=standings, underline=True))
            )
        return Group(*parts)


def sheet_table(rounds: tuple[SheetRound, ...], names: list[tuple[str, str]], width: int) -> Table:
    """The sheet at most ``width`` cells wide: a player's name, the last round's center,
    stack and score, the earlier rounds' scores, the total.  The names keep up to
    :data:`NAME_ROOM` cells (cut in the middle beyond); the oldest rounds are left out
    first when the width is short (the total counts them)."""
    last, number = rounds[-1], len(rounds)
    earlier = list(range(1, number))
    longest = max(cell_len(name + mark) for name, mark in names)

    def room(shown: list[int]) -> int:
        columns = [
            ["Center", *(str(line.center) for line in last.lines)],
            ["Stack", *(str(line.stack) for line in last.lines)],
            [f"Round {number}", *(str(line.score) for line in last.lines)],
            *([f"R{n}", *(str(line.score) for line in rounds[n - 1].lines)] for n in shown),
            ["Total", *(str(total) for total in last.totals)],
        ]
        used = sum(max(len(cell) for cell in column) for column in columns)
        return width - used - CELL_EDGES * (len(columns) + 1) - 1

    while earlier and room(earlier) < min(longest, NAME_ROOM):
        earlier.pop(0)
    name_width = max(MIN_NAME, min(longest, room(earlier)))
    table = Table()
    table.add_column("Player", no_wrap=True)
    table.add_column("Center", justify="right")
    table.add_column("Stack", justify="right")
    table.add_column(f"Round {number}", justify="right")
    for n in earlier:
        table.add_column(f"R{n}", justify="right")
    table.add_column("Total", justify="right", style="bold")
    for seat, line in enumerate(last.lines):
        name, mark = names[seat]
        scores = [rounds[n - 1].lines[seat].score for n in earlier]
        cells = [fit(name, name_width - cell_len(mark)) + mark, line.center, line.stack, line.score, *scores]
        table.add_row(*(literal(cell) for cell in [*cells, last.totals[seat]]))
    return table


def who(model: TableModel, seat: int) -> str:
    """A seat as the sheet's sentences name it: ``you`` for the viewer's own."""
    return "you" if seat == model.seat else model.name(seat)


def you_mark(model: TableModel, seat: int) -> str:
    """What follows a name in the sheet's first column: `` (you)`` for the viewer's own
    (not twice: a player named ``You``)."""
    return " (you)" if seat == model.seat and model.name(seat).lower() != "you" else ""


def footer(model: TableModel, now: float) -> str:
    """What comes next: the next round (ready, or waiting for the others; once someone is
    ready, the seconds before it is dealt anyway, and for the host once ready, dealing it
    now), or the match's result and the rematch (wanted, or waiting for the others; the
    seconds before it starts with whoever wants one; the host, once wanting one, starting it
    now); ``now``: the local clock."""
    if model.phase is Phase.OVER and model.winners is not None:
        winners = sorted(model.winners, key=lambda seat: seat != model.seat)  # the viewer first: "You and Bo"
        names = ["You" if seat == model.seat else model.name(seat) for seat in winners]
        total = model.totals()[winners[0]]
        verb = "win" if len(winners) > 1 or winners[0] == model.seat else "wins"
        result = f"Match over: {together(names)} {verb} with {plural(total, 'point')}."
        if model.seat is None:
            return result
        left = model.ready_left(now)
        when = "" if left is None else f" Rematch in {math.ceil(left)} s."
        if not model.is_ready:
            return f"{result} Enter: a rematch.{when}"
        host = " Enter: start it now." if model.is_host else ""
        return f"{result} Rematch wanted: waiting for the others.{when}{host}"
    if model.phase is Phase.SCORING:
        left = model.ready_left(now)
        when = "" if left is None else f" Next round in {math.ceil(left)} s."
        if not model.is_ready:
            return "Enter: ready for the next round." + when
        host = " Enter: start it now." if model.is_host else ""
        return ("Ready: waiting for the others." if left is None else f"Ready.{when}") + host
    return ""
