"""How a card looks in the terminal: its number and a symbol per colour, in that colour.

The symbol makes every card readable without colour (monochrome terminals,
colour-blind players); the browser client uses the same four symbols.
"""

from __future__ import annotations

from rich.text import Text

from ligretto.client.mirror import face, number
from ligretto.engine.cards import NUMBERS, Colour, face_of, face_text

SYMBOLS = {Colour.RED: "◆", Colour.GREEN: "▲", Colour.YELLOW: "●", Colour.BLUE: "■"}
"""One shape per face colour, as in the browser: red diamond, green triangle, yellow circle, blue square."""

STYLES = {Colour.RED: "bold red", Colour.GREEN: "bold green", Colour.YELLOW: "bold yellow", Colour.BLUE: "bold blue"}


def colour_of(card: str) -> Colour:
    """The colour of a card written as in the protocol (``r5``)."""
    return Colour(face(card) // NUMBERS)


def label(card: str) -> str:
    """``●5`` for the red 5: symbol and number, no colour needed."""
    return f"{SYMBOLS[colour_of(card)]}{number(card)}"


def card_text(card: str | None, *, dim: bool = False) -> Text:
    """A card as coloured text; ``None`` (no card) is a dash."""
    if card is None:
        return Text("–", style="dim")
    style = STYLES[colour_of(card)]
    return Text(label(card), style=f"{style} dim" if dim else style)


def pile_text(colour: str, top: int) -> Text:
    """A center pile: its colour's symbol and top number; a complete pile is dim and ticked."""
    card = face_text(face_of(Colour[colour.upper()], top))
    text = card_text(card, dim=top == 10)
    if top == 10:
        text.append("✓", style="dim")
    return text


def legend() -> Text:
    """The four colours with their symbols, e.g. for the help screen."""
    text = Text()
    for colour, symbol in SYMBOLS.items():
        text.append(f"{symbol} {colour.name.lower()}  ", style=STYLES[colour])
    return text
