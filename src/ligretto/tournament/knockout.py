"""Knockout: after each stage the top half of each table goes on, until one table plays
the final.

At each table of a stage its entrants are ranked by :func:`table_ranking`: the stage's
duplicate score at that table, then its points (plain round scores), then rounds won, then
the entrant's number (who entered first).  Of the ``c`` entrants at a table (the bots
filling its byes are not entrants) the first ``ceil(c / 2)`` go on to the next stage
(:func:`going_on`); the others are out at that stage.  The stage at which the entrants
left all fit at one table is the final, and its first is the winner; so the number of
stages follows from the entrants and the table size (:func:`knockout_stages`).  At the
final, one table alone plays the deals and every duplicate score is 0: its points decide.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from .duplicate import Rounds
from .swiss import capacities


def going_on(entrants: int) -> int:
    """How many of a table's ``entrants`` go on to the next stage: the top half, rounded up.

    >>> [going_on(n) for n in (1, 2, 3, 4)]
    [1, 1, 2, 2]
    """
    return (entrants + 1) // 2


def knockout_stages(entrants: int, table_size: int) -> int:
    """The stages of a knockout of ``entrants`` at tables of ``table_size``, the final included.

    >>> knockout_stages(16, 4), knockout_stages(16, 2), knockout_stages(4, 4)
    (3, 4, 1)
    """
    stages, left = 1, entrants
    while left > table_size:
        left = sum(going_on(size) for size in capacities(left, table_size))
        stages += 1
    return stages


def table_ranking(seats: Sequence[int | None], rounds: Rounds, scores: Sequence[Fraction]) -> list[int]:
    """The entrants of one table of a stage, best first (see the module's docstring):
    ``seats`` the entrant per seat (``None``: a bye), ``rounds`` its match, ``scores`` each
    seat's duplicate score over the stage."""
    ranked = [
        (-scores[seat], -sum(line[seat] for line in rounds), -sum(line[seat] == max(line) for line in rounds), entrant)
        for seat, entrant in enumerate(seats)
        if entrant is not None
    ]
    return [entrant for *_, entrant in sorted(ranked)]
