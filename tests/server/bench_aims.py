"""Live presence's cost at a table (issue 28 point 7; docs/benchmarks.md, "Live presence").

A :class:`~ligretto.server.table.table.Table` of four people in-process on a
``VirtualScheduler``, seat 0 sharing its aim; each listener encodes what it is sent as the
server would (``protocol.wire``: one text for all).  Two figures, each a median of repeats:
the table's time per aim when every aim is relayed (one each ``1 / AIMS_PER_S`` s of
virtual time, to the three others), and per aim of a burst that the rate bound coalesces
(all but the first and the last replaced), with the bytes of one ``aimed``.

    python tests/server/bench_aims.py [--aims 20000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from ligretto import protocol
from ligretto.engine.rules import RuleSet
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table


class Wire:
    """A listener that encodes what it is sent, as a connection would."""

    def __init__(self) -> None:
        self.seat: int | None = None
        self.sent = 0
        self.bytes = 0

    def detach(self) -> None:
        self.seat = None

    def send(self, message: Any) -> None:
        self.sent += 1
        self.bytes += len(protocol.wire(message))


def once(aims: int) -> tuple[float, float, int, float]:
    """(µs per relayed aim, µs per aim of a burst, aims the burst relayed, bytes per aimed)."""
    scheduler = VirtualScheduler()
    table = Table("BENCH", seats=4, rules=RuleSet(), countdown_s=1.0, scheduler=scheduler)
    listeners = [Wire() for _ in range(4)]
    for index, listener in enumerate(listeners):
        table.join(listener, f"P{index}")
    table.start(0)
    scheduler.advance(1.0)
    table.share_aim(0, True)
    row = len(table.game.areas[0].row)  # type: ignore[union-attr]
    start = time.perf_counter()
    for i in range(aims):
        table.aim(0, "row", i % row, "new" if i % 2 else None)
        scheduler.advance(1 / protocol.AIMS_PER_S)
    relayed = (time.perf_counter() - start) / aims * 1e6
    other = listeners[1]
    sent, size = other.sent, other.bytes / other.sent
    start = time.perf_counter()
    for i in range(aims):
        table.aim(0, "row", i % row, "new")
    burst = (time.perf_counter() - start) / aims * 1e6
    scheduler.advance(1.0)
    table.close()
    return relayed, burst, other.sent - sent, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aims", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    runs = [once(args.aims) for _ in range(args.repeats)]
    relayed = statistics.median(r[0] for r in runs)
    burst = statistics.median(r[1] for r in runs)
    print(f"every aim relayed to 3 others: {relayed:.1f} µs per aim (median of {args.repeats})")
    print(f"a burst of {args.aims}: {burst:.1f} µs per aim, {runs[0][2]} relayed; {runs[0][3]:.0f} bytes per aimed")


if __name__ == "__main__":
    main()
