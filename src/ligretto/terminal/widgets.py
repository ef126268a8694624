"""The table's widgets.  Each one draws a part of the ``TableModel`` when ``show`` is called;
none of them holds game state of its own.

Names, error messages, rule values and table codes come from the network: every such
text reaches Rich through :func:`literal`, as a ``Text`` (never a markup string, which
Rich would read: a player named ``[/x]`` would crash the screen, ``[red]x`` would be red).
"""

from __future__ import annotations

import math

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ligretto.client.mirror import Area
from ligretto.terminal.faces import card_text, pile_text
from ligretto.terminal.model import Notice, Phase, TableModel

ENDINGS = {
    "stop": "Ligretto Stop",
    "stalemate_vote": "stalemate (vote)",
    "stalemate_proven": "stalemate (no play left)",
}


def literal(text: object, style: str = "") -> Text:
    """Text shown exactly as written: Rich reads no markup in it (names, server messages,
    rule values, codes; a table's cells too, where a plain string would be markup)."""
    return Text(str(text), style=style)


def column_text(column: list[str], *, key: str = "") -> Text:
    """A row column: its exposed card, and in the expert variant the cards under it, dim."""
    text = Text(f"{key} " if key else "", style="bold")
    for card in column[:-1]:
        text.append_text(card_text(card, dim=True))
        text.append("›", style="dim")
    text.append_text(card_text(column[-1] if column else None))
    return text


def joined(parts: list[Text], gap: str = "  ") -> Text:
    return Text(gap).join(parts)


class TableWidget(Static):
    """A part of the table, drawn from the model."""

    def show(self, model: TableModel, now: float) -> None:
        self.update(self.draw(model, now))

    def draw(self, model: TableModel, now: float) -> RenderableType:
        raise NotImplementedError


class TitleBar(TableWidget):
    def draw(self, model: TableModel, now: float) -> RenderableType:
        text = Text("LIGRETTO", style="bold reverse")
        parts = []
        if model.round_number:
            parts.append(f"round {model.round_number}")
        if model.rules:
            parts.append(f"match {str(model.rules['match_end']).replace(':', ' ')}")
            if model.expert:
                parts.append("expert variant")
        if model.judging is not None:
            parts.append(f"races {model.judging}")
        parts.append(self.app.sub_title or "")
        return text.append_text(literal("  " + " · ".join(p for p in parts if p)))


class LobbyView(TableWidget):
    """Who sits at the table before the match, and what the host can do."""

    def draw(self, model: TableModel, now: float) -> RenderableType:
        lines = [literal(f"Table {model.code}: waiting for the match to start", "bold")]
        if model.judging is not None:
            lines.append(literal(f"Races for a pile judged {model.judging}", "dim"))
        for index, person in enumerate(model.people):
            if person is None:
                lines.append(Text(f"  seat {index + 1}: free", style="dim"))
                continue
            role = f" (bot {person.bot})" if person.bot else (" (host)" if index == model.host else "")
            you = "  ← you" if index == model.seat else ""
            lines.append(literal(f"  seat {index + 1}: {person.name}{role}{you}"))
        if model.is_host:
            lines.append(Text("You are the host: b adds a bot, Enter starts the match.", style="italic"))
        else:
            lines.append(Text("Waiting for the host to start.", style="italic"))
        return Text("\n").join(lines)


class CenterPiles(TableWidget):
    def draw(self, model: TableModel, now: float) -> RenderableType:
        view = model.view
        if view is None or not view.center:
            return Text("no piles yet: a 1 starts one", style="dim")
        return joined([pile_text(p.colour, p.top) for p in view.center])


class Opponents(TableWidget):
    """Every other player, one line each."""

    def draw(self, model: TableModel, now: float) -> RenderableType:
        view = model.view
        grid = Table.grid(padding=(0, 2))
        for _ in range(6):
            grid.add_column(no_wrap=True)
        grid.add_column()  # the flags wrap first when the line is too long
        if view is None:
            return grid
        totals = model.totals()
        for area in view.areas:
            if area.seat == model.seat:
                continue
            score = totals[area.seat] if area.seat < len(totals) else 0
            grid.add_row(*opponent_cells(model, area, score))
        return grid


def opponent_cells(model: TableModel, area: Area, score: int) -> list[Text]:
    person = model.people[area.seat] if area.seat < len(model.people) else None
    flags = []
    if area.voted:
        flags.append("voted")
    if person is not None and person.bot is not None and "bot" not in person.name.lower():
        flags.append("bot")
    if person is not None and person.bot is None and not person.connected:
        flags.append("away, a bot plays" if person.stand_in else "away")
    stack = Text("stack ").append_text(card_text(area.stack_top)).append(f" ×{area.stack_size}")
    discard = Text("discard ").append_text(card_text(area.discard_top))
    return [
        literal(model.name(area.seat), "bold"),
        joined([column_text(column) for column in area.row], " "),
        stack,
        discard,
        Text(f"hand {area.hand_size}"),
        Text(f"score {score}"),
        Text(", ".join(flags), style="italic"),
    ]


class OwnArea(TableWidget):
    """The person's own cards, with the keys that play them."""

    def draw(self, model: TableModel, now: float) -> RenderableType:
        area = model.me
        if area is None:
            return Text("You are watching this table." if model.seat is None else "", style="italic")
        totals = model.totals()
        score = totals[area.seat] if area.seat < len(totals) else 0
        head = literal(f"{model.name(area.seat)} · score {score}", "bold")
        if area.voted:
            head.append(" · you voted stalemate (v withdraws)", style="italic")
        row = Text("Row      ").append_text(
            joined([column_text(column, key=str(i + 1)) for i, column in enumerate(area.row)], "   ")
        )
        cards = Text("Stack    s ").append_text(card_text(area.stack_top))
        cards.append(f" ({area.stack_size} left)    Discard  d ")
        cards.append_text(card_text(area.discard_top))
        cards.append(f" ({area.discard_size})    Hand {area.hand_size} (Space turns)")
        return Text("\n").join([head, row, cards])


class StatusLine(TableWidget):
    """The countdown, the Stop banner, and the last notice (refusals stand out)."""

    def draw(self, model: TableModel, now: float) -> RenderableType:
        lines = []
        left = model.countdown(now)
        if model.banner is not None:
            lines.append(literal(f" {model.banner} ", "bold reverse"))
        elif left is not None:
            lines.append(Text(f"Round {model.round_number} starts in {left:.1f} s", style="bold"))
        elif model.phase is Phase.PLAYING:
            lines.append(Text("Playing: no turns, play as fast as you can!", style="bold"))
        if model.notice:
            style = {Notice.INFO: "", Notice.REFUSED: "bold reverse red", Notice.ERROR: "bold red"}[model.notice_kind]
            lines.append(literal(model.notice, style))
        return Text("\n").join(lines)


class ScoreSheetView(TableWidget):
    """The score sheet after each round: every round's score, the last round's center and
    stack counts, the running totals; and the match result at the end."""

    def draw(self, model: TableModel, now: float) -> RenderableType:
        if not model.sheet:
            return Text("")
        last = model.sheet[-1]
        number = len(model.sheet)
        stopper = f" by {model.name(last.stopped_by)}" if last.stopped_by is not None else ""
        ending = ENDINGS.get(last.ending, last.ending)
        title = literal(f"Score sheet: round {number} ended with {ending}{stopper}", "bold")
        table = Table()
        table.add_column("Player")
        table.add_column("Center", justify="right")
        table.add_column("Stack", justify="right")
        table.add_column(f"Round {number}", justify="right")
        for earlier in range(1, number):
            table.add_column(f"R{earlier}", justify="right")
        table.add_column("Total", justify="right", style="bold")
        for seat, line in enumerate(last.lines):
            earlier_scores = [model.sheet[i].lines[seat].score for i in range(number - 1)]
            name = model.name(seat) + (" (you)" if seat == model.seat else "")
            cells = [name, line.center, line.stack, line.score, *earlier_scores, last.totals[seat]]
            table.add_row(*(literal(cell) for cell in cells))
        return Group(title, table, literal(self.footer(model, now), "bold"))

    @staticmethod
    def footer(model: TableModel, now: float) -> str:
        if model.phase is Phase.OVER and model.winners is not None:
            names = ", ".join(model.name(seat) for seat in model.winners)
            total = model.totals()[model.winners[0]]
            verb = "win" if len(model.winners) > 1 else "wins"
            result = f"Match over: {names} {verb} with {total} points."
            return result + (" Enter: a rematch." if model.is_host else "")
        if model.phase is Phase.SCORING:
            left = model.ready_left(now)
            when = "" if left is None else f" Next round in {math.ceil(left)} s."
            if not model.is_ready:
                return "Enter: ready for the next round." + when
            host = " Enter: start it now." if model.is_host else ""
            return ("Ready: waiting for the others." if left is None else f"Ready.{when}") + host
        return ""
