"""Whether the table fits the terminal in boxes, or needs the compact layout.

The boxed layout draws the center, the opponents and the own area each in a box with a
border all round.  When that would be taller than the terminal (12 players at 80 × 24, the
documented minimum), the app puts the screen in the compact layout (the ``-compact``
class): a rule with its title over each part instead of a box, the center's piles one
space apart, the own name and score in the own part's rule.  Either way the status line
and the own area keep their place at the bottom (the app's CSS): a refusal, a race or
the Stop banner is never pushed off the screen.
"""

from __future__ import annotations

from textual.widget import Widget

COMPACT = "-compact"
"""The screen's class in the compact layout."""

TITLE, FOOTER = 1, 1
"""The title bar and the key bar."""
BORDERS = 2
"""A box's top and bottom border."""
OWN_LINES = 3
"""The own area: name and score, row, stack / discard / hand."""
STATUS_LINES = 2
"""The status line: what is going on (countdown, play, the Stop banner), the last notice."""
PILES_PER_SEAT = 4
"""Every player brings one 1 of each colour: at most four center piles a seat."""
PILE_CELLS = 4
"""A center pile in the boxed layout, with its gap (``■5  ``)."""
SIDES = 4
"""Cells a box takes from the width: its two borders and its padding."""


def center_lines(seats: int, width: int) -> int:
    """Lines the center takes in a box of a terminal ``width`` wide when every pile is down."""
    room = max(1, width - SIDES)
    return max(1, -(-seats * PILES_PER_SEAT * PILE_CELLS // room))


def boxed_height(seats: int, width: int) -> int:
    """Lines the boxed layout needs to show a round of ``seats`` players at once."""
    center = BORDERS + center_lines(seats, width)
    opponents = BORDERS + max(1, seats - 1)
    return TITLE + center + opponents + BORDERS + OWN_LINES + STATUS_LINES + FOOTER


def compact(seats: int, width: int, height: int) -> bool:
    """Whether a round of ``seats`` players needs the compact layout at this size."""
    return height < boxed_height(seats, width)


def is_compact(widget: Widget) -> bool:
    """Whether ``widget``'s screen is in the compact layout."""
    return widget.screen.has_class(COMPACT)
