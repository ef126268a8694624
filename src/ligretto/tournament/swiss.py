"""Swiss pairing into tables: entrants in order of standing, each table filled from the top.

A stage's tables are filled one after another.  Each table opens with the best-placed
entrant not yet seated, then takes the next best who has not shared a table with anyone
already at it.  When no such pairing of the whole stage exists, the search allows one
repeated pair of table-mates, then two, ...; it is bounded (:data:`SEARCH_BUDGET`), and
past its bound the seats go greedily to whoever repeats fewest.  Seats short of the
table size are *byes*, filled by bots: at most one a table, from the bottom table up, so
no table is mostly bots and the leaders play full tables.

Pure and deterministic: the order given is the only source of choice.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping, Sequence, Set

SEARCH_BUDGET = 20_000
"""Steps the search for a pairing without repeat table-mates may take before the greedy
fallback (fewest repeats) is used instead: keeps a pairing instant at any size."""


def capacities(entrants: int, table_size: int) -> list[int]:
    """How many entrants sit at each table: tables of ``table_size``, the missing seats
    (byes) spread one a table from the last table up.

    >>> capacities(10, 4)
    [4, 3, 3]
    """
    if table_size < 2:
        raise ValueError(f"a table needs at least 2 seats, not {table_size}")
    if entrants < 2:
        raise ValueError(f"a tournament needs at least 2 entrants, not {entrants}")
    tables = -(-entrants // table_size)
    sizes = [table_size] * tables
    byes = tables * table_size - entrants
    for bye in range(byes):
        sizes[tables - 1 - bye % tables] -= 1
    return sizes


def repeats(table: Sequence[int], met: Mapping[int, Set[int]]) -> int:
    """Pairs at ``table`` who have shared a table before."""
    return sum(1 for i, a in enumerate(table) for b in table[i + 1 :] if b in met.get(a, ()))


def pair(order: Sequence[int], table_size: int, met: Mapping[int, Set[int]]) -> list[list[int]]:
    """The tables of a stage, each a list of entrants best-placed first.

    ``order`` is every entrant, best standing first; ``met`` who has shared a table with
    whom in earlier stages.
    """
    sizes = capacities(len(order), table_size)
    budget = [SEARCH_BUDGET]
    allowed = 0
    while budget[0] > 0:
        found = _with_repeats_at_most(allowed, list(order), sizes, met, budget)
        if found is not None:
            return found
        allowed += 1
    return _fewest_repeats(list(order), sizes, met)


def _with_repeats_at_most(
    allowed: int, order: list[int], sizes: list[int], met: Mapping[int, Set[int]], budget: list[int]
) -> list[list[int]] | None:
    """A pairing with at most ``allowed`` repeat pairs, trying the best-placed choices
    first; ``None`` when there is none or the search ran out of steps (``budget[0]``,
    shared between the calls of one pairing)."""
    tables: list[list[int]] = [[] for _ in sizes]
    rank = {entrant: place for place, entrant in enumerate(order)}
    free = list(order)

    def fill(table: int, spare: int) -> bool:
        if table == len(sizes):
            return True
        seated = tables[table]
        if len(seated) == sizes[table]:
            return fill(table + 1, spare)
        # a new table opens with the best free entrant (any other choice only permutes tables)
        candidates = free[:1] if not seated else list(free)
        for entrant in candidates:
            budget[0] -= 1
            if budget[0] <= 0:
                return False
            cost = sum(1 for other in seated if other in met.get(entrant, ()))
            if cost > spare:
                continue
            seated.append(entrant)
            free.remove(entrant)
            if fill(table, spare - cost):
                return True
            insort(free, entrant, key=rank.__getitem__)
            seated.pop()
        return False

    return tables if fill(0, allowed) else None


def _fewest_repeats(order: list[int], sizes: list[int], met: Mapping[int, Set[int]]) -> list[list[int]]:
    """Greedy: each seat to the free entrant with the fewest table-mates met, best-placed first."""
    free = list(order)
    tables = []
    for size in sizes:
        seated = [free.pop(0)]
        while len(seated) < size:
            best = min(free, key=lambda e: (sum(1 for s in seated if s in met.get(e, ())), free.index(e)))
            free.remove(best)
            seated.append(best)
        tables.append(seated)
    return tables
