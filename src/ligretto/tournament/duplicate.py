"""Duplicate scoring: each seat's result against the same seat of the same deal elsewhere.

Every table of a stage is dealt the same deals (the stage's match seed, round by round),
so a seat's cards in round ``r`` are the same at every table.  A seat's *duplicate
score* for a round is its round score minus the mean score of that seat in that round
over every table of the stage that played the round: luck of the cards cancels out, what
is left is how much better the seat was played than elsewhere.  A round only one table
played scores 0 for all (nothing to compare with).  Exact: :class:`~fractions.Fraction`.

Bots filling a bye are in the means (they played the seat), though they are not ranked.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

Rounds = Sequence[Sequence[int]]
"""One table's match: ``rounds[r][seat]`` is the seat's score in round ``r + 1``."""


def seat_means(tables: Sequence[Rounds]) -> dict[tuple[int, int], Fraction]:
    """The mean score of each (round index, seat) over the tables that played that round."""
    sums: dict[tuple[int, int], int] = {}
    counts: dict[tuple[int, int], int] = {}
    for rounds in tables:
        for index, scores in enumerate(rounds):
            for seat, score in enumerate(scores):
                sums[index, seat] = sums.get((index, seat), 0) + score
                counts[index, seat] = counts.get((index, seat), 0) + 1
    return {key: Fraction(total, counts[key]) for key, total in sums.items()}


def duplicate_scores(tables: Sequence[Rounds]) -> list[list[Fraction]]:
    """Each table's seats' duplicate scores over its rounds: ``[table][seat]``.

    >>> duplicate_scores([[(10, 2)], [(4, 6)]])
    [[Fraction(3, 1), Fraction(-2, 1)], [Fraction(-3, 1), Fraction(2, 1)]]
    """
    for rounds in tables:
        if len({len(scores) for scores in rounds}) > 1:
            raise ValueError("every round of a table has one score per seat")
    means = seat_means(tables)
    result = []
    for rounds in tables:
        seats = len(rounds[0]) if rounds else 0
        totals = [Fraction(0)] * seats
        for index, scores in enumerate(rounds):
            for seat, score in enumerate(scores):
                totals[seat] += score - means[index, seat]
        result.append(totals)
    return result
