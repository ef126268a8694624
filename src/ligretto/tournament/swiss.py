"""Swiss pairing into tables: entrants in order of standing, each table filled from the top.

A stage's tables are filled one after another.  Each table opens with the best-placed
entrant not yet seated, then takes the next best who has not shared a table with anyone
already at it, backtracking when a later table cannot be filled so (a search bounded by
:data:`SEARCH_BUDGET` steps).  When it finds no such pairing, the seats go greedily to
whoever repeats fewest, and then two entrants of different tables swap while a swap
lowers the number of repeated pairs (the nearest tables first, so that tables stay
groups of similar standing).  Seats short of the table size are *byes*, filled by bots:
spread over the tables as evenly as they go, from the bottom table up, so the leaders
play full tables.

Pure and deterministic: the order given is the only source of choice.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping, Sequence, Set

SEARCH_BUDGET = 20_000
"""Steps the search for a pairing without repeat table-mates may take before the greedy
fallback (fewest repeats, then swaps) is used instead: keeps a pairing quick at any size."""
SWAP_ROUNDS = 200
"""At most this many improving swaps after the greedy fallback."""


def capacities(entrants: int, table_size: int) -> list[int]:
    """How many entrants sit at each table: tables of ``table_size``, the missing seats
    (byes) spread one a table from the last table up (round again if there are more).

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
    found = _without_repeats(list(order), sizes, met)
    if found is not None:
        return found
    tables = _fewest_repeats(list(order), sizes, met)
    _swap_down(tables, met)
    rank = {entrant: place for place, entrant in enumerate(order)}
    return [sorted(table, key=rank.__getitem__) for table in tables]


def _without_repeats(order: list[int], sizes: list[int], met: Mapping[int, Set[int]]) -> list[list[int]] | None:
    """A pairing where nobody meets anyone twice, trying the best-placed choices first;
    ``None`` when there is none or the search ran out of steps."""
    tables: list[list[int]] = [[] for _ in sizes]
    rank = {entrant: place for place, entrant in enumerate(order)}
    free = list(order)
    steps = 0

    def fill(table: int) -> bool:
        nonlocal steps
        if table == len(sizes):
            return True
        seated = tables[table]
        if len(seated) == sizes[table]:
            return fill(table + 1)
        # a new table opens with the best free entrant (any other choice only permutes
        # tables); its other seats are taken in standing order (any other order only
        # permutes the same table), so each set of table-mates is tried once
        candidates = free[:1] if not seated else [e for e in free if rank[e] > rank[seated[-1]]]
        for entrant in candidates:
            steps += 1
            if steps > SEARCH_BUDGET:
                return False
            if any(other in met.get(entrant, ()) for other in seated):
                continue
            seated.append(entrant)
            free.remove(entrant)
            if fill(table):
                return True
            insort(free, entrant, key=rank.__getitem__)
            seated.pop()
        return False

    return tables if fill(0) else None


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


def _swap_down(tables: list[list[int]], met: Mapping[int, Set[int]]) -> None:
    """Swap two entrants of different tables (not the one each table opened with) while
    that lowers the repeated pairs: the first such swap found, nearest tables first (at
    most :data:`SWAP_ROUNDS` swaps)."""

    for _ in range(SWAP_ROUNDS):
        swap = _first_better_swap(tables, met)
        if swap is None:
            return
        i, a, j, b = swap
        tables[i][tables[i].index(a)] = b
        tables[j][tables[j].index(b)] = a


def _first_better_swap(tables: list[list[int]], met: Mapping[int, Set[int]]) -> tuple[int, int, int, int] | None:
    """(table, entrant, other table, entrant) of the first swap that lowers the repeats."""
    costs = [repeats(table, met) for table in tables]
    for distance in range(1, len(tables)):
        for i in range(len(tables) - distance):
            j = i + distance
            if costs[i] == 0 and costs[j] == 0:
                continue
            for a in tables[i][1:]:  # each table's opener stays: the leaders stay at the top tables
                for b in tables[j][1:]:
                    after = _cost(tables[i], a, b, met) + _cost(tables[j], b, a, met)
                    if after < costs[i] + costs[j]:
                        return i, a, j, b
    return None


def _cost(table: list[int], out: int, into: int, met: Mapping[int, Set[int]]) -> int:
    """The repeated pairs of ``table`` with ``into`` in the place of ``out``."""
    return repeats([into if entrant == out else entrant for entrant in table], met)
