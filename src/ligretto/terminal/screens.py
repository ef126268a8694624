"""The help screen: every key binding, the colour symbols, and the rules (``ligretto.rulebook``)."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from ligretto import rulebook
from ligretto.terminal.faces import legend
from ligretto.terminal.keys import KEYS

DEFAULT_LANG = "en"


class RulebookError(LookupError):
    """The rule book has no text in the language asked for."""


def rules_text(lang: str = DEFAULT_LANG) -> str:
    """The rule book in ``lang`` as Markdown (``ligretto.rulebook``, shared with the browser)."""
    try:
        return rulebook.text(lang)
    except rulebook.UnknownLanguageError as error:
        raise RulebookError(str(error)) from None


def bindings_table() -> Table:
    table = Table(title="Keys (the same in the browser, except where it says terminal only)", expand=True)
    table.add_column("Key", style="bold", no_wrap=True)
    table.add_column("What it does")
    for key in KEYS:
        table.add_row(key.keys, key.does + ("" if key.both else " (terminal only)"))
    return table


class HelpScreen(ModalScreen[None]):
    """Every binding and the rules; Esc, ? or F1 closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; height: 90%; border: thick $accent; background: $surface; }
    """
    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("escape,question_mark,f1,q", "dismiss_help", "close")
    ]

    def __init__(self, lang: str = DEFAULT_LANG) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        try:
            rules = rules_text(self.lang)
        except RulebookError:  # checked on the command line; English is always there
            rules = rules_text(DEFAULT_LANG)
        with VerticalScroll():
            yield Static(bindings_table(), id="help-keys")
            yield Static(Text("Colours: ").append_text(legend()), id="help-colours")
            yield Markdown(rules, id="help-rules")

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
