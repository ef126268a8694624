"""A score keeper's sheet as CSV (``GET /api/sheets/{code}/csv``), and read back.

One row per round per player: ``round, player, center, stack, score, total, ending,
stopped`` (``stopped`` 1 for the player who called Stop); the scores and totals are the
engine's (``engine.tally``).  Counts omitted under ``scoring=first_out`` are empty cells.
A name a spreadsheet would take for a formula (``=``, ``+``, ``-``, ``@``) is written
after a ``'`` (and so is one that starts with ``'``), which :func:`read_csv` drops:
reading the file back gives the same rounds.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from ligretto.engine.events import Ending
from ligretto.engine.rules import RuleSet
from ligretto.engine.tally import TALLY_ENDINGS, Tally, tally_sheet

__all__ = ["HEADER", "CsvError", "read_csv", "sheet_csv"]

HEADER = ("round", "player", "center", "stack", "score", "total", "ending", "stopped")
_FORMULA = ("=", "+", "-", "@")
_ENDING_NAMES = {ending: name for name, ending in TALLY_ENDINGS.items()}


class CsvError(ValueError):
    """A CSV that is not a sheet of these players in this form."""


def _name_cell(name: str) -> str:
    return f"'{name}" if name.startswith((*_FORMULA, "'")) else name


def sheet_csv(rules: RuleSet, names: Sequence[str], rounds: Sequence[Tally]) -> str:
    """Every round of a sheet, one row per player."""
    sheet = tally_sheet(rules, len(names), rounds)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    for number, (tally, row) in enumerate(zip(rounds, sheet.rounds, strict=True), start=1):
        totals = sheet.totals(number)
        for seat, line in enumerate(row):
            center = line.center if tally.center else ""
            stack = line.stack if tally.stack else ""
            stopped = int(tally.stopped_by == seat)
            ending = _ENDING_NAMES[tally.ending]
            writer.writerow([number, _name_cell(names[seat]), center, stack, line.score, totals[seat], ending, stopped])
    return out.getvalue()


def _count(cell: str, where: str) -> int | None:
    if cell == "":
        return None
    try:
        return int(cell)
    except ValueError:
        raise CsvError(f"{where}: {cell!r} is not a whole number") from None


def _round(number: int, rows: list[list[str]], names: Sequence[str]) -> Tally:
    if len(rows) != len(names):
        raise CsvError(f"round {number} has {len(rows)} rows, not one for each of the {len(names)} players")
    centers, stacks, stopped, endings = [], [], [], set()
    for seat, row in enumerate(rows):
        cell = row[1].removeprefix("'")
        if cell != names[seat]:
            raise CsvError(f"round {number}, row {seat + 1} is {cell!r}, not {names[seat]!r}")
        centers.append(_count(row[2], f"round {number}, {cell}, center"))
        stacks.append(_count(row[3], f"round {number}, {cell}, stack"))
        if row[7] == "1":
            stopped.append(seat)
        endings.add(row[6])
    if len(endings) != 1 or next(iter(endings)) not in TALLY_ENDINGS:
        raise CsvError(f"round {number} ends by one of stop or stalemate, not {sorted(endings)}")
    ending = TALLY_ENDINGS[endings.pop()]
    if len(stopped) > 1 or (ending is Ending.STOP) != bool(stopped):
        raise CsvError(f"round {number}: one player called Stop in a round ended by stop, none in a stalemate")
    return Tally(_counts(centers, number), _counts(stacks, number), ending, stopped[0] if stopped else None)


def _counts(cells: list[int | None], number: int) -> tuple[int, ...]:
    if all(cell is None for cell in cells):
        return ()
    if any(cell is None for cell in cells):
        raise CsvError(f"round {number}: a count for every player, or for none")
    return tuple(cell for cell in cells if cell is not None)


def read_csv(text: str, names: Sequence[str]) -> list[Tally]:
    """The rounds of a CSV written by :func:`sheet_csv` for the players ``names``."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or tuple(rows[0]) != HEADER:
        raise CsvError(f"the first row is {', '.join(HEADER)}")
    by_round: dict[int, list[list[str]]] = {}
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(HEADER):
            raise CsvError(f"row {line} has {len(row)} cells, not {len(HEADER)}")
        number = _count(row[0], f"row {line}, round")
        if number is None or number != len(by_round) + (0 if number in by_round else 1):
            raise CsvError(f"row {line}: rounds are numbered 1, 2, ... in order")
        by_round.setdefault(number, []).append(row)
    return [_round(number, rows, names) for number, rows in by_round.items()]
