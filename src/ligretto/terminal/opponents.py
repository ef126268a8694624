"""The opponents: every other player on one line, the name fitted to the room the other
columns leave (cut in its middle, so ``Smart bot 10`` never reads ``Smart bo…``)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ligretto.client.mirror import Area
from ligretto.terminal.faces import card_text
from ligretto.terminal.model import TableModel
from ligretto.terminal.widgets import AtWidth, TableWidget, column_text, joined, literal
from ligretto.terminal.words import fit

GAP = 2
"""Cells between two columns."""
MIN_NAME = 8
"""The narrowest a name is cut to (``Smar… 10``), however little room the line leaves."""


@dataclass(frozen=True, slots=True)
class Line:
    """One opponent's line: the name, the row, stack, discard, hand and score, the flags."""

    name: str
    cells: list[Text]
    flags: Text


class Opponents(TableWidget):
    """Every other player, one line each."""

    def draw(self, model: TableModel, now: float) -> RenderableType:
        view = model.view
        if view is None:
            return Text("")
        totals = model.totals()
        lines = [
            Line(model.name(area.seat), cells(area, total_of(totals, area.seat)), flags(model, area))
            for area in view.areas
            if area.seat != model.seat
        ]
        return AtWidth(lambda width: grid(lines, width))


def grid(lines: list[Line], width: int) -> Table:
    """The lines in columns ``width`` cells wide at most: each name as long as the room
    the widest of the other columns leave (at least :data:`MIN_NAME`)."""
    widths = [max(cell.cell_len for cell in column) for column in zip(*(line.cells for line in lines), strict=True)]
    flagged = max((line.flags.cell_len for line in lines), default=0)
    columns = 1 + len(widths) + 1  # the name, the cells, the flags (its gap even when empty)
    room = width - sum(widths) - flagged - GAP * (columns - 1)
    longest = max((cell_len(line.name) for line in lines), default=0)
    name_width = max(MIN_NAME, min(longest, room))
    table = Table.grid(padding=(0, GAP))
    for _ in range(1 + len(widths)):
        table.add_column(no_wrap=True)
    table.add_column()  # the flags wrap first when the line is too long
    for line in lines:
        table.add_row(literal(fit(line.name, name_width), "bold"), *line.cells, line.flags)
    return table


def total_of(totals: tuple[int, ...], seat: int) -> int:
    return totals[seat] if seat < len(totals) else 0


def cells(area: Area, score: int) -> list[Text]:
    """An opponent's row, stack top and count, discard top, hand count and score."""
    stack = Text("stack ").append_text(card_text(area.stack_top)).append(f" ×{area.stack_size}")
    return [
        joined([column_text(column) for column in area.row], " "),
        stack,
        Text("discard ").append_text(card_text(area.discard_top)),
        Text(f"hand {area.hand_size}"),
        Text(f"score {score}"),
    ]


def flags(model: TableModel, area: Area) -> Text:
    """What else is to know of an opponent: voted, a bot, away."""
    person = model.people[area.seat] if area.seat < len(model.people) else None
    said = []
    if area.voted:
        said.append("voted")
    if person is not None and person.bot is not None and "bot" not in person.name.lower():
        said.append("bot")
    if person is not None and person.bot is None and not person.connected:
        said.append("away, a bot plays" if person.stand_in else "away")
    return Text(", ".join(said), style="italic")
