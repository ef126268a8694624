"""The Textual app: the table on screen, keys to play, fed by one transport (local or remote)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.widgets import Footer

from ligretto.terminal import keys, layout
from ligretto.terminal.model import Phase, TableModel
from ligretto.terminal.opponents import Opponents
from ligretto.terminal.screens import DEFAULT_LANG, HelpScreen
from ligretto.terminal.sheetview import ScoreSheetView
from ligretto.terminal.transport import Transport
from ligretto.terminal.widgets import CenterPiles, LobbyView, OwnArea, StatusLine, TableWidget, TitleBar

TICK_S = 0.1
"""How often the countdown (and the score sheet's wait for *Ready*) is redrawn."""


class ServerMessage(Message):
    """One protocol message from the transport, with the local time it arrived."""

    def __init__(self, data: dict[str, Any], arrived: float) -> None:
        super().__init__()
        self.data = data
        self.arrived = arrived


class LigrettoApp(App[None]):
    """Ligretto in the terminal."""

    TITLE = "Ligretto"
    # The board and the score sheet take the room left: the own area and the status line
    # under them keep their place at the bottom (layout.py), whatever the size.
    CSS = """
    Screen { layout: vertical; }
    #title { height: 1; }
    #board { height: 1fr; overflow-y: auto; }
    .box { border: round $primary; padding: 0 1; height: auto; }
    #center { min-height: 3; }
    #own { border: round $accent; }
    #status { height: auto; min-height: 2; padding: 0 1; }
    #sheet { padding: 0 1; height: 1fr; overflow-y: auto; }
    Screen.-compact .box { border: none; border-top: round $primary; }
    Screen.-compact #center { min-height: 2; }
    Screen.-compact #own { border: none; border-top: round $accent; }
    """
    BINDINGS = keys.bindings()

    def __init__(
        self,
        transport: Transport,
        *,
        lang: str = DEFAULT_LANG,
        bot: str = "smart:skilled",
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.transport = transport
        self.clock = clock
        """The wall clock (seconds since the epoch) that countdowns are drawn against."""
        self.model = TableModel(session=transport.session, site=transport.site)
        self.lang = lang
        self.bot = bot
        self.placing: str | None = None
        """During a placement (Shift+S, Shift+D): ``stack`` or ``discard``, waiting for a row key."""
        self.sub_title = transport.description

    def compose(self) -> ComposeResult:
        yield TitleBar(id="title")
        yield LobbyView(id="lobby", classes="box")
        with Vertical(id="board"):
            center = CenterPiles(id="center", classes="box")
            center.border_title = "Center"
            yield center
            opponents = Opponents(id="opponents", classes="box")
            opponents.border_title = "Opponents"
            yield opponents
        yield ScoreSheetView(id="sheet")
        own = OwnArea(id="own", classes="box")
        own.border_title = "You"
        yield own
        yield StatusLine(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.redraw()
        self.transport.start(self.deliver, self.model.clock)
        self.set_interval(TICK_S, self.tick)

    async def on_unmount(self) -> None:
        await self.transport.close()

    # --- messages from the table ------------------------------------------------------

    def deliver(self, message: dict[str, Any]) -> None:
        """The transport's callback: queue the message for the app (never handled inline)."""
        self.post_message(ServerMessage(message, self.clock()))

    def on_server_message(self, event: ServerMessage) -> None:
        self.model.receive(event.data, event.arrived)
        if event.data.get("type") == "snapshot":
            self.placing = None
        self.redraw()

    def on_resize(self, event: events.Resize) -> None:
        # The layout may change (boxed or compact); the app's own size is set after this.
        self.redraw(event.size)

    def tick(self) -> None:
        if self.model.phase is Phase.COUNTDOWN:
            for status in self.query(StatusLine):  # (none while the app closes)
                status.show(self.model, self.clock())
        elif self.model.ready_by is not None and self.model.phase is Phase.SCORING:
            for sheet in self.query(ScoreSheetView):  # (none while the app closes)
                sheet.show(self.model, self.clock())

    def redraw(self, size: Size | None = None) -> None:
        """Draw the table for the terminal's ``size`` (``None``: the app's)."""
        if not self.query("#lobby"):
            return  # the app is closing: its widgets are gone (a pong may still arrive)
        phase = self.model.phase
        lobby = phase is None or phase is Phase.LOBBY  # (None: still connecting)
        sheet = phase in (Phase.SCORING, Phase.OVER) and bool(self.model.sheet)
        self.query_one("#lobby").display = lobby
        self.query_one("#board").display = not lobby and not sheet
        self.query_one("#sheet").display = sheet
        self.query_one("#own").display = not lobby and not sheet  # the sheet has the own line
        size = size or self.size
        self.screen.set_class(layout.compact(len(self.model.people), size.width, size.height), layout.COMPACT)
        now = self.clock()
        for widget in self.query(TableWidget):
            widget.show(self.model, now)

    # --- the person's keys --------------------------------------------------------------

    def send(self, message: dict[str, Any] | None) -> None:
        """Send what the model made of a key (nothing: it already said why on the status line)."""
        if message is not None:
            self.transport.send(message)
        self.query_one(StatusLine).show(self.model, self.clock())

    def action_row(self, position: int) -> None:
        if self.placing is not None:
            source, self.placing = self.placing, None
            self.send(self.model.place(position, source))
            return
        self.send(self.model.play("row", position))

    def action_stack(self) -> None:
        self.send(self.model.play("stack"))

    def action_discard(self) -> None:
        self.send(self.model.play("discard"))

    def action_turn(self) -> None:
        self.send(self.model.turn())

    def action_vote(self) -> None:
        self.send(self.model.vote())

    def action_place(self, source: str) -> None:
        """Expert variant: the next row key puts the ``source`` top onto that column (again: cancel)."""
        if self.placing == source:
            self.action_cancel()
            return
        if self.model.placeable(source) is None:
            self.send(None)  # the model said why not
            return
        self.placing = source
        self.model.say(f"put the {source} top onto which row column? 1-5 (Esc cancels)")
        self.send(None)

    def action_cancel(self) -> None:
        if self.placing is not None:
            self.placing = None
            self.model.say("placement cancelled")
            self.send(None)

    def action_ready(self) -> None:
        self.send(self.model.ready())

    def action_add_bot(self) -> None:
        self.send(self.model.add_bot(self.bot))

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.lang))
