"""The key bindings: the same keys as the browser client (``server/static/js/keys.js``),
one list for the app, the help screen and docs/clients.md."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

ROW_KEYS = "12345"
"""Row positions 1-5 (a row has at most 5 columns)."""


@dataclass(frozen=True, slots=True)
class Key:
    """One binding as people read it: the key(s) and what they do."""

    keys: str
    does: str
    both: bool = True
    """Also in the browser client (``False``: terminal only)."""


KEYS = (
    Key("1 – 5", "play the card at that row position to a center pile where it fits (a 1 starts a new pile)"),
    Key("s", "play the top of your Ligretto stack"),
    Key("d", "play the top of your discard pile"),
    Key("Space", "turn the hand: 3 cards onto the discard pile"),
    Key("v", "vote to end the round as a stalemate; press again to withdraw the vote"),
    Key(
        "Shift+S / Shift+D",
        "expert variant: then 1 – 5 puts the stack top / the discard top onto that row column "
        "(the same key again, or Esc, cancels)",
    ),
    Key("Esc", "cancel putting a card on the row; close the help screen"),
    Key("Enter", "after a round: ready for the next one"),
    Key("?", "the help screen: every key and the rules"),
    Key("F1", "the help screen too", both=False),
    Key("Enter", "the host: start the match, a rematch once it is over, the next round once ready", both=False),
    Key("b", "the host, in the lobby of a server table: add a bot", both=False),
    Key("Ctrl+Q", "quit", both=False),
)
"""Every binding, in the order of the help screen and of docs/clients.md."""


def bindings() -> list[Binding | tuple[str, str] | tuple[str, str, str]]:
    """The app's bindings (the row keys also pick the column of a placement)."""
    row = [Binding(key, f"row({i})", f"row {i + 1}", show=False) for i, key in enumerate(ROW_KEYS)]
    return [
        *row,
        Binding("s", "stack", "stack"),
        Binding("d", "discard", "discard"),
        Binding("space", "turn", "turn"),
        Binding("v", "vote", "vote"),
        Binding("S", "place('stack')", "place stack top", show=False),
        Binding("D", "place('discard')", "place discard top", show=False),
        Binding("enter", "ready", "ready/start"),
        Binding("b", "add_bot", "add bot", show=False),
        Binding("escape", "cancel", "cancel", show=False),
        Binding("question_mark,f1", "help", "help", key_display="?"),
    ]
