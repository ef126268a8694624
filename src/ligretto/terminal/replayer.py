"""``ligretto replay FILE``: a replay file verified against the engine, then played back
in the terminal as a spectator saw the round.

Each step shows the center and every player's public area -- row, Ligretto stack top and
count, discard top and count, hand count -- from the engine's spectator view (never a
hand's order or a stack card below its top), then the score at the end.  The pace is the
round's own (each action's time, scaled by ``speed``), or one action per Enter
(``step``); the waiting and the reading of Enter are passed in, so tests run at once.
Rich only: no Textual.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text

from ligretto.engine.views import AreaView, RoundView
from ligretto.replay import Frame, ReplayError, ReplayFormatError, Verified, decode, describe, verify
from ligretto.replay.verify import outcome_text, printable
from ligretto.terminal.faces import card_text, pile_text

MIN_SPEED, MAX_SPEED = 0.25, 8.0
UNKNOWN_GAP_S = 0.5
"""The wait before an action stored without a time (at speed 1)."""


@dataclass(slots=True)
class Pace:
    """How fast to play back: ``speed`` times the round's own pace, or ``step`` by Enter."""

    speed: float = 1.0
    step: bool = False
    sleep: Callable[[float], None] = time.sleep
    read_line: Callable[[], str] = field(default=sys.stdin.readline)


def load(path: Path) -> Verified:
    """Read and verify a replay file; :class:`ReplayError` (also for an unreadable or
    malformed file) with one line saying what is wrong."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ReplayError(f"cannot read it: {error.strerror or error}") from None
    try:
        return verify(decode(data))
    except ReplayFormatError as error:
        raise ReplayError(str(error)) from None


def run(path: Path, *, verify_only: bool, pace: Pace, console: Console | None = None) -> None:
    """The command: the file verified (and played), else :class:`ReplayError` with the
    one line saying why (the command line's exit code 2)."""
    verified = load(path)
    if verify_only:
        print(verified.summary())  # one line, never wrapped
        return
    play(verified, console or Console(highlight=False), pace)


# --- playing back -----------------------------------------------------------------------


def play(verified: Verified, console: Console, pace: Pace) -> None:
    """Show the deal, then every step at its time (or on Enter), then the score."""
    names = verified.names
    live = console.is_terminal and not pace.step
    screens: list[tuple[Frame | None, RoundView]] = [(None, verified.dealt)]
    screens += [(frame, frame.board) for frame in verified.frames]
    if live:
        with Live(screen(names, None, verified.dealt), console=console, auto_refresh=False) as shown:
            for frame, board in _paced(screens, pace):
                shown.update(screen(names, frame, board), refresh=True)
    else:
        for frame, board in _paced(screens, pace):
            console.print(screen(names, frame, board))
    console.print(scores(verified))


def waits(frames: tuple[Frame, ...], speed: float) -> list[float]:
    """Seconds to wait before each frame: the time since the one before, over ``speed``."""
    result, last = [], 0.0
    for frame in frames:
        gap = UNKNOWN_GAP_S if frame.t is None else max(0.0, frame.t - last)
        last = last if frame.t is None else frame.t
        result.append(gap / speed)
    return result


def _paced(screens: list[tuple[Frame | None, RoundView]], pace: Pace) -> Iterator[tuple[Frame | None, RoundView]]:
    """The screens in order, each after its wait (or after Enter); the deal at once."""
    frames = tuple(frame for frame, _ in screens if frame is not None)
    for (frame, board), gap in zip(screens, [0.0, *waits(frames, pace.speed)], strict=True):
        if frame is not None:
            if pace.step:
                pace.read_line()
            elif gap > 0:
                pace.sleep(gap)
        yield frame, board


# --- drawing ----------------------------------------------------------------------------


def screen(names: list[str], frame: Frame | None, board: RoundView) -> RenderableType:
    """One step: what happened, the center, every player's public area."""
    if frame is None:
        title = Text("the deal", style="bold")
    else:
        at = "?" if frame.t is None else f"{frame.t:.3f} s"
        title = Text(
            f"action {frame.index} at {at}: {describe(frame.action, frame.card, printable(names[frame.seat]))}"
        )
        title.append(f" -> {frame.answer}", style="dim" if frame.answer == "applied" else "yellow")
    center = Text("center: ")
    for pile in board.center:
        center.append_text(pile_text(pile.colour.name.lower(), pile.top))
        center.append(" ")
    if not board.center:
        center.append("(empty)", style="dim")
    return Group(title, center, areas(names, board), Text(""))


def areas(names: list[str], board: RoundView) -> Table:
    table = Table(show_edge=False, box=None, pad_edge=False)
    for heading in ("seat", "name", "row", "stack", "discard", "hand", ""):
        table.add_column(heading)
    for area in board.areas:
        table.add_row(
            str(area.seat),
            Text(printable(names[area.seat])),
            row_text(area),
            _count(area.stack_top, area.stack_size),
            _count(area.discard_top, area.discard_size),
            str(area.hand_size),
            "votes" if area.voted else "",
        )
    return table


def row_text(area: AreaView) -> Text:
    """The row's exposed cards, a column's covered ones counted (expert): ``◆5 ■2+1``."""
    text = Text()
    for column in area.row:
        text.append_text(card_text(str(column[-1]) if column else None))
        if len(column) > 1:
            text.append(f"+{len(column) - 1}", style="dim")
        text.append(" ")
    return text


def _count(top: object, size: int) -> Text:
    text = card_text(None if top is None else str(top))
    text.append(f" ({size})", style="dim")
    return text


def scores(verified: Verified) -> RenderableType:
    """The end: the outcome and every player's center, stack and score."""
    end = verified.doc.end
    title = Text(f"outcome: {outcome_text(end, [printable(n) for n in verified.names])}")
    table = Table(title=title, box=None)
    for heading in ("seat", "name", "center", "stack", "score"):
        table.add_column(heading)
    for seat, name in enumerate(verified.names):
        table.add_row(
            str(seat), Text(printable(name)), str(end.center[seat]), str(end.stack[seat]), str(end.scores[seat])
        )
    return table
