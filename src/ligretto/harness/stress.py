"""``python -m ligretto.harness.stress``: the stress harness (issue 13, "Measured")
against a real server.  ``--scenario malformed`` (the default, this module): malformed
messages at tables in every phase; ``idle``: idle and half-open connections
(``harness/idle.py``); ``tables``: a table-creation flood from one address
(``harness/tableflood.py``).  Each prints its :class:`~ligretto.harness.scenario.ScenarioReport`
as JSON; the exit code is 1 if a figure that must be zero is not.

The malformed scenario (:func:`run_malformed`) holds ``tables`` tables in each phase a
table has (``kinds.PHASES``: lobby, countdown, playing, scoring, over), each with an
attacker (``harness/attacker.py``) who sends ``count`` messages of every kind the audit
used (``harness/kinds.py``: random bytes, random text, wrong shapes and types, huge
numbers of every JSON kind, nesting up to the largest frame the server reads, messages
past the size limit, actions for seats, piles, positions and columns that do not exist,
and the messages of other phases), in batches each checked for exactly one refusal per
message; then frames past the largest the server reads (closed with 1009, the seat back
by its token) and, on fresh connections, text frames that are not UTF-8 (closed with
1007).  It reports what was tried and what was answered otherwise, per phase and kind,
whether the server still answers (crashes), tables whose state a spectator saw change
(state changes by refused messages), and the server's memory (``--server-pid``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Sequence

from ligretto.harness.attacker import Attacker, Tally
from ligretto.harness.idle import run_idle
from ligretto.harness.kinds import PHASES
from ligretto.harness.probes import alive, rss_of
from ligretto.harness.run import server_urls
from ligretto.harness.scenario import ScenarioReport
from ligretto.harness.tableflood import run_table_flood

BATCH = 64
"""Messages sent at once before the ping that closes their batch."""


def _sum(by_phase: dict[str, dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for kinds in by_phase.values():
        for kind, n in kinds.items():
            total[kind] = total.get(kind, 0) + n
    return dict(sorted(total.items()))


async def run_malformed(
    url: str,
    tables: int,
    count: int,
    *,
    rate: float = 0.0,
    utf8: int = 10,
    closes: int = 1,
    batch: int = BATCH,
    phases: Sequence[str] = PHASES,
    server_pid: int | None = None,
    seed: int = 0,
) -> ScenarioReport:
    """Malformed messages at ``tables`` tables in each of ``phases``, ``count`` at each
    (``rate`` a second at most per table, 0: unpaced), ``closes`` frames too big at each,
    ``utf8`` invalid UTF-8 frames on fresh connections; the report."""
    base, ws_url = server_urls(url)
    rss_before = rss_of(server_pid)[0] if server_pid else None
    tally = Tally()
    attackers = [
        Attacker(base, ws_url, phase, random.Random(f"{seed}:{phase}:{i}"), tally)
        for phase in phases
        for i in range(tables)
    ]
    await asyncio.gather(*(a.seat() for a in attackers))
    start = time.monotonic()
    outcomes = await asyncio.gather(*(a.attack(count, batch, rate, closes) for a in attackers), return_exceptions=True)
    # An attacker whose connection was lost (or who waited in vain) is counted, not raised:
    # the report says what happened, and whether the server still answers.
    lost = [(a, o) for a, o in zip(attackers, outcomes, strict=True) if isinstance(o, BaseException)]
    for attacker, _ in lost:
        tally.count(tally.odd, attacker.phase, "attacker_lost")
    codes = [await attackers[i % len(attackers)].invalid_utf8() for i in range(utf8)]
    seconds = time.monotonic() - start
    await asyncio.gather(*(a.close() for a in attackers), return_exceptions=True)
    if codes:
        tally.count(tally.tried, "fresh connection", "invalid_utf8", len(codes))
    if odd_utf8 := sum(code != 1007 for code in codes):
        tally.count(tally.odd, "fresh connection", "invalid_utf8", odd_utf8)
    tried = _sum(tally.tried)
    return ScenarioReport(
        scenario="malformed",
        what="malformed messages",
        tried=sum(tried.values()),
        seconds=round(seconds, 1),
        crashes=0 if await alive(base) else 1,
        wrong_answers=sum(_sum(tally.odd).values()),
        state_changes=tally.state_changes,
        rss_before=rss_before,
        rss_after=rss_of(server_pid)[0] if server_pid else None,
        details={
            "tables": dict.fromkeys(phases, tables),
            "tried": tried,
            "not_refused_once": _sum(tally.odd),
            "by_phase": {phase: dict(sorted(kinds.items())) for phase, kinds in tally.tried.items()},
            "not_refused_once_by_phase": tally.odd,
            "refusals_by_code": dict(sorted(tally.answers.items())),
            "views_compared": tally.views_compared,
            "countdowns_attacked": tally.countdowns + (tables if "countdown" in phases else 0),
            "batches_past_go": tally.past_go,
            "attackers_lost": [f"{a.phase}: {type(o).__name__}: {o}" for a, o in lost][:10],
            "messages_per_s": round(sum(tried.values()) / seconds) if seconds else None,
        },
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ligretto.harness.stress", description=__doc__)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument(
        "--scenario",
        choices=("malformed", "idle", "tables"),
        default="malformed",
        help="malformed messages at tables in every phase (default); idle and half-open connections "
        "(harness/idle.py); a table-creation flood from one address (harness/tableflood.py)",
    )
    parser.add_argument("--tables", type=int, default=2, help="tables in each phase, one attacker each (default 2)")
    parser.add_argument("--count", type=int, default=1000, help="malformed messages per table (default 1000)")
    parser.add_argument("--rate", type=float, default=9.0, help="messages a second per table, 0: unpaced (default 9)")
    parser.add_argument("--batch", type=int, default=BATCH, help=f"messages per batch, one ping each (default {BATCH})")
    parser.add_argument("--utf8", type=int, default=10, help="connections sending invalid UTF-8 (default 10)")
    parser.add_argument("--closes", type=int, default=1, help="frames past the size limit per table (default 1)")
    parser.add_argument("--sockets", type=int, default=1000, help="idle: WebSockets that never say hello")
    parser.add_argument("--half-open", type=int, default=1000, help="idle: HTTP connections with half a header")
    parser.add_argument("--ping", type=float, default=3.0, help="idle: seconds between an idle socket's pings")
    parser.add_argument("--hello-timeout", type=float, default=10.0, help="idle: the server's hello deadline")
    parser.add_argument("--request-timeout", type=float, default=10.0, help="idle: the server's HTTP deadline")
    parser.add_argument("--creations", type=int, default=1000, help="tables: tables asked for (default 1000)")
    parser.add_argument("--server-pid", type=int, help="the server's process id, for its memory")
    args = parser.parse_args(argv)
    report: ScenarioReport
    if args.scenario == "idle":
        report = asyncio.run(
            run_idle(
                args.url,
                args.sockets,
                args.half_open,
                ping_s=args.ping,
                hello_s=args.hello_timeout,
                request_timeout_s=args.request_timeout,
                server_pid=args.server_pid,
            )
        )
    elif args.scenario == "tables":
        report = asyncio.run(run_table_flood(args.url, args.creations, server_pid=args.server_pid))
    else:
        report = asyncio.run(
            run_malformed(
                args.url,
                args.tables,
                args.count,
                rate=args.rate,
                utf8=args.utf8,
                closes=args.closes,
                batch=args.batch,
                server_pid=args.server_pid,
            )
        )
    print(json.dumps(report.to_dict(), indent=2))
    return 1 if report.failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
