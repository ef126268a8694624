"""The table's widgets.  Each one draws a part of the ``TableModel`` when ``show`` is called;
none of them holds game state of its own.

Names, error messages, rule values and table codes come from the network: every such
text reaches Rich through :func:`literal`, as a ``Text`` (never a markup string, which
Rich would read: a player named ``[/x]`` would crash the screen, ``[red]x`` would be red).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.text import Text
from textual.widgets import Static

from ligretto.engine.rules import MatchEndKind
from ligretto.terminal.faces import card_text, pile_text
from ligretto.terminal.layout import is_compact
from ligretto.terminal.model import Notice, Phase, TableModel
from ligretto.terminal.words import plural


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


@dataclass(frozen=True, slots=True)
class AtWidth:
    """A renderable made when it is drawn, for the width it is drawn in: a resized
    terminal draws it again to the new width (names fitted to the room left, ...)."""

    make: Callable[[int], RenderableType]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.make(options.max_width)


class TableWidget(Static):
    """A part of the table, drawn from the model."""

    def show(self, model: TableModel, now: float) -> None:
        self.update(self.draw(model, now))

    def draw(self, model: TableModel, now: float) -> RenderableType:
        raise NotImplementedError


class TitleBar(TableWidget):
    def draw(self, model: TableModel, now: float) -> RenderableType:
        text = Text("LIGRETTO", style="bold reverse")
        parts = [model.tournament or ""]
        number, end = model.round_number, model.session.rules.match_end if model.rules else None
        if end is not None and end.kind is MatchEndKind.ROUNDS:
            parts.append(f"round {number} of {end.n}" if number else f"a match of {plural(end.n, 'round')}")
        else:
            parts.append(f"round {number}" if number else "")
            parts.append(f"match to {plural(end.n, 'point')}" if end is not None else "")
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
        return joined([pile_text(p.colour, p.top) for p in view.center], " " if is_compact(self) else "  ")


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
        compact = is_compact(self)
        self.border_title = head if compact else "You"  # compact: the name and score in the rule
        row = Text("Row      ").append_text(
            joined([column_text(column, key=str(i + 1)) for i, column in enumerate(area.row)], "   ")
        )
        cards = Text("Stack    s ").append_text(card_text(area.stack_top))
        cards.append(f" ({area.stack_size} left)    Discard  d ")
        cards.append_text(card_text(area.discard_top))
        cards.append(f" ({area.discard_size})    Hand {area.hand_size} (Space turns)")
        return Text("\n").join([row, cards] if compact else [head, row, cards])


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
