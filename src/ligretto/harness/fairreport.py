"""The report of ``ligretto bench --only fairness`` (``fairness.py``): what each mode's
tables counted (:class:`Mode`, :class:`FairTable`), the far seat's share over rounds
(``sim.stats.share_over_rounds``), the added ack latency, the clamp's check, and the
report as JSON and for people (docs/fairness.md, "Measured on the server")."""

from __future__ import annotations

import os
import platform
from array import array
from dataclasses import dataclass, field
from typing import Any

from ligretto.harness.client import TableRun
from ligretto.harness.fairclient import FairClient, RaceTally, ranked_too_early
from ligretto.harness.figures import Figures, percentiles
from ligretto.sim.stats import share_over_rounds


@dataclass(slots=True)
class FairTable:
    """One table: its race tally and its near and far clients."""

    run: TableRun
    tally: RaceTally
    near: FairClient
    far: FairClient


@dataclass(slots=True)
class Mode:
    """One way of judging under test, its tables and what they counted."""

    name: str
    figures: Figures = field(default_factory=Figures)
    tables: list[FairTable] = field(default_factory=list)
    started: float = 0.0
    stopped: float = 0.0

    @property
    def arbitration(self) -> str:
        return "arrival" if self.name == "arrival" else "fair"

    def rounds(self) -> list[tuple[int, int]]:
        return [r for table in self.tables for r in table.tally.rounds()]

    def races(self) -> int:
        return sum(races for races, _ in self.rounds())


def _ms(values: array[float]) -> dict[str, float | None]:
    figures = percentiles(list(values))
    return {"p50": figures["p50"], "p95": figures["p95"], "p99": figures["p99"], "n": figures["n"]}


MARGINS_MS = (50, 100, 250, 500, 1000)
"""The bounds of ``lost_by_margin``: lost plays by how much sooner the winning card was."""


def _margins(margins: list[int | None]) -> dict[str, int]:
    """Lost plays by the winner's margin (``abs(by_ms)``) up to each bound, beyond the last,
    and without a margin (``none``)."""
    counts = {f"<={bound}": 0 for bound in MARGINS_MS} | {f">{MARGINS_MS[-1]}": 0, "none": 0}
    for ms in margins:
        if ms is None:
            counts["none"] += 1
            continue
        bound = next((b for b in MARGINS_MS if abs(ms) <= b), None)
        counts[f"<={bound}" if bound is not None else f">{MARGINS_MS[-1]}"] += 1
    return counts


def _mode_report(mode: Mode, settings: dict[str, Any]) -> dict[str, Any]:
    rounds = mode.rounds()
    share = share_over_rounds([won for _, won in rounds], [races for races, _ in rounds]) if rounds else None
    checks = [
        ranked_too_early(lost, winner.plays)
        for table in mode.tables
        for lost in table.tally.lost
        for winner in (table.near, table.far)
        if winner.session.seat == lost.winner
    ]
    added: dict[str, array[float]] = {"near": array("d"), "far": array("d")}
    contested: dict[bool, array[float]] = {True: array("d"), False: array("d")}
    for table in mode.tables:
        added["near"].extend(table.near.added)
        added["far"].extend(table.far.added)
        for client in (table.near, table.far):
            for value, flag in zip(client.added, client.contested, strict=True):
                contested[bool(flag)].append(value)
    everything = added["near"] + added["far"]
    figures = mode.figures
    return {
        "arbitration": mode.arbitration,
        "lie_s": settings["lie_s"] if mode.name == "liar" else 0.0,
        "share_far": None if share is None else round(share.rate, 4),
        "share_far_ci": None if share is None else [round(share.low, 4), round(share.high, 4)],
        "races": mode.races(),
        "far_won": sum(won for _, won in rounds),
        "races_told": sum(table.tally.told_races() for table in mode.tables),
        "races_told_by_ack": sum(table.tally.told_by_ack() for table in mode.tables),
        "rounds": len(rounds),
        "enough_races": mode.races() >= settings["races"],
        "seconds": round(mode.stopped - mode.started, 1),
        "added_ack_ms": _ms(everything),
        "added_ack_ms_near": _ms(added["near"]),
        "added_ack_ms_far": _ms(added["far"]),
        "added_ack_ms_contested": _ms(contested[True]),
        "added_ack_ms_uncontested": _ms(contested[False]),
        "lost_by_margin": _margins([lost.by_ms for table in mode.tables for lost in table.tally.lost]),
        "ack_ms": _ms(figures.ack_latency),
        "round_trip_ms_near": _ms(array("d", [t.near.clock.round_trip for t in mode.tables if t.near.clock.trips])),
        "round_trip_ms_far": _ms(array("d", [t.far.clock.round_trip for t in mode.tables if t.far.clock.trips])),
        "ranked_checked": sum(check is not None for check in checks),
        "ranked_too_early": sum(check is True for check in checks),
        "refusals": figures.refusals,
        "errors": figures.errors,
        "error_samples": figures.error_samples[:5],
    }


def build_report(
    modes: list[Mode],
    settings: dict[str, Any],
    *,
    setup_s: float,
    tables_seated: int,
    lags: list[float],
    server: dict[str, float],
) -> dict[str, Any]:
    report: dict[str, Any] = {}
    details = {mode.name: _mode_report(mode, settings) for mode in modes}
    for name, mode in details.items():
        report[f"{name}_share_far"] = mode["share_far"]
        report[f"{name}_share_far_ci"] = mode["share_far_ci"]
        report[f"{name}_races"] = mode["races"]
        report[f"{name}_added_ack_ms_p50"] = mode["added_ack_ms"]["p50"]
        report[f"{name}_added_ack_ms_p99"] = mode["added_ack_ms"]["p99"]
    holds = server.get("ligretto_hold_seconds_count", 0.0)
    report |= {
        "modes": details,
        "settings": settings,
        "bots": f"{settings['strategy']}:{settings['level']}",
        "tables_seated": tables_seated,
        "setup_s": round(setup_s, 1),
        "client_loop_lag_ms": _ms(array("d", lags)),
        "server_holds": int(holds),
        "server_hold_ms_mean": round(1000 * server.get("ligretto_hold_seconds_sum", 0.0) / holds, 1) if holds else None,
        "server_holds_up_to_ms": _hold_buckets(server),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
    }
    return report


def _hold_buckets(server: dict[str, float]) -> dict[str, int]:
    """The server's hold histogram (``ligretto_hold_seconds``): holds of at most so many ms."""
    prefix = 'ligretto_hold_seconds_bucket{le="'
    buckets = {}
    for name, count in server.items():
        if name.startswith(prefix) and name.endswith('"}') and "Inf" not in name:
            buckets[f"{1000 * float(name[len(prefix) : -2]):g}"] = int(count)
    return buckets


def format_report(report: dict[str, Any]) -> str:
    """The report for people: one line per mode, then the settings."""
    settings = report["settings"]
    lines = [
        f"fairness ({report['bots']} x2, {settings['near_ms']:g} and {settings['far_ms']:g} ms one way,"
        f" window {settings['window_ms']} ms, {settings['tables']} tables per mode):"
    ]
    for name, mode in report["modes"].items():
        ci = mode["share_far_ci"] or [None, None]
        added = mode["added_ack_ms"]
        lines.append(
            f"  {name:8} share far {mode['share_far']} [{ci[0]}, {ci[1]}] over {mode['races']} races"
            f" ({mode['races_told']} told) in {mode['rounds']} rounds, {mode['seconds']} s;"
            f" added ack p50 {added['p50']} ms, p99 {added['p99']} ms"
            f" (uncontested p99 {mode['added_ack_ms_uncontested']['p99']} ms,"
            f" contested p99 {mode['added_ack_ms_contested']['p99']} ms); ranked too early {mode['ranked_too_early']};"
            f" errors {sum(mode['errors'].values())}"
        )
    lag = report["client_loop_lag_ms"]
    lines.append(
        f"server holds {report['server_holds']} (mean {report['server_hold_ms_mean']} ms);"
        f" client loop lag p99 {lag['p99']} ms; CPU % {report['cpu_percent']};"
        f" load average {report['load_average']} (start, end);"
        f" Python {report['python']}, {report['machine']}"
    )
    return "\n".join(lines)
