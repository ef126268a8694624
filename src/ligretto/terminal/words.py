"""The terminal's words for counts and names: ``1 point``, ``2 points``; ``Ann, Bo and
Cy``; a long name cut in its middle so the end that tells it apart stays
(``Smart bot 10`` is never ``Smart bo…``).  English only, as the terminal is (the
browser has its own, in every language: ``static/i18n``)."""

from __future__ import annotations

from rich.cells import cell_len

ELLIPSIS = "…"


def plural(count: int, one: str, many: str | None = None) -> str:
    """``count`` and its noun: ``1 point``, ``-1 point``, ``0 points``, ``3 rounds``
    (``many``: the noun's plural when it is not ``one`` + ``s``)."""
    noun = one if abs(count) == 1 else (many or f"{one}s")
    return f"{count} {noun}"


def together(names: list[str]) -> str:
    """Names as a sentence says them: ``Ann``, ``Ann and Bo``, ``Ann, Bo and Cy``."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def fit(name: str, cells: int) -> str:
    """``name`` in at most ``cells`` terminal cells: as it is if it fits, else cut in the
    middle, keeping its last word (a number: ``Smart bot 10``) or its last third."""
    if cell_len(name) <= cells:
        return name
    if cells <= 1:
        return ELLIPSIS[:cells]
    last = name.rsplit(" ", 1)[-1]
    keep = cell_len(last) + 1 if 0 < cell_len(last) + 1 <= cells // 2 else max(1, cells // 3)
    tail = _cut(name[::-1], keep)[::-1]
    head = _cut(name, cells - 1 - cell_len(tail))
    return f"{head.rstrip()}{ELLIPSIS}{tail}"


def _cut(text: str, cells: int) -> str:
    """The longest start of ``text`` in at most ``cells`` cells (a wide character whole or not at all)."""
    taken = []
    used = 0
    for ch in text:
        used += cell_len(ch)
        if used > cells:
            break
        taken.append(ch)
    return "".join(taken)
