"""What ``ligretto loadtest`` counts and how it reports it: the shared :class:`Figures`
every client counts into, latency percentiles, the report as JSON and for people."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ligretto.sim.stats import percentile

if TYPE_CHECKING:
    from ligretto.harness.probes import Cpu, Memory

TARGETS = {"ack_p99_ms": 50.0, "fanout_p99_ms": 100.0, "errors": 0, "server_bytes_per_connection": 100 * 1024}
"""The issue's targets: p99 ack < 50 ms, p99 fan-out < 100 ms, no errors, < 100 KiB a connection."""


@dataclass(slots=True)
class Figures:
    """Everything counted during a run (shared by every client: one event loop)."""

    # Samples live in flat arrays of floats, which the garbage collector never scans:
    # hundreds of thousands of tuples or lists would make this process pause, and its
    # pauses would show up as latency.
    sent: array[float] = field(default_factory=lambda: array("d"))
    """Send time of every action."""
    ack_sent: array[float] = field(default_factory=lambda: array("d"))
    ack_latency: array[float] = field(default_factory=lambda: array("d"))
    """Send time and ack latency of every acknowledged action."""
    fanout_sent: array[float] = field(default_factory=lambda: array("d"))
    fanout_latency: array[float] = field(default_factory=lambda: array("d"))
    """Send time of an applied action and the latency to one other client of its table."""
    unmatched_events: int = 0
    """Events of another seat with no known send time (should stay 0)."""
    refusals: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    late: int = 0
    """Actions answered ``not_playing``/``countdown``: the round ended while they travelled."""
    connections_opened: int = 0
    connections_failed: int = 0
    connect_errors: dict[str, int] = field(default_factory=dict)
    tables_created: int = 0
    tables_failed: int = 0
    tables_started: int = 0
    rounds_completed: int = 0
    messages_received: int = 0

    def error(self, kind: str, detail: str = "") -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.error_samples) < 20:
            self.error_samples.append(f"{kind}: {detail}" if detail else kind)

    def connect_error(self, error: BaseException) -> None:
        self.connections_failed += 1
        kind = type(error).__name__
        self.connect_errors[kind] = self.connect_errors.get(kind, 0) + 1
        if len(self.error_samples) < 20:
            self.error_samples.append(f"connect: {kind}: {error}")


def percentiles(values: list[float]) -> dict[str, float | None]:
    """p50/p95/p99/max in milliseconds: the simulator's percentile (``sim.stats.percentile``,
    interpolated between order statistics), so both tools mean the same by "p99"."""
    if not values:
        return {"p50": None, "p95": None, "p99": None, "max": None, "n": 0}
    ordered = sorted(values)
    return {
        "p50": round(1000 * percentile(ordered, 0.50), 2),
        "p95": round(1000 * percentile(ordered, 0.95), 2),
        "p99": round(1000 * percentile(ordered, 0.99), 2),
        "max": round(1000 * ordered[-1], 2),
        "n": len(values),
    }


def _lag_line(lag: dict[str, Any]) -> str:
    if not lag.get("looks"):
        return "unknown (no ligretto_loop_lag_seconds on /metrics)"
    return (
        f"mean {lag['mean_ms']} ms, p99 under {lag['p99_bucket_ms']:g} ms, "
        f"{lag['over_50_ms']} of {lag['looks']} looks over 50 ms"
    )


def build_report(
    *,
    figures: Figures,
    request: dict[str, Any],
    window: tuple[float, float],
    setup_s: float,
    memory: Memory,
    cpu: Cpu,
    server_latency: dict[str, Any],
    server_gc: dict[str, Any],
    server_loop_lag: dict[str, Any],
    extra: dict[str, Any],
    lags: list[float],
    gc_pauses: list[float],
) -> dict[str, Any]:
    start, end = window
    seconds = end - start
    acks = within(figures.ack_sent, figures.ack_latency, start, end)
    fanout = within(figures.fanout_sent, figures.fanout_latency, start, end)
    sent_in_window = sum(1 for sent in figures.sent if start <= sent < end)
    errors = sum(figures.errors.values()) + figures.connections_failed
    before, after = memory.values.get("before"), memory.values.get("after")
    opened = figures.connections_opened
    per_connection = None if before is None or after is None or not opened else round((after - before) / opened)
    report: dict[str, Any] = {
        **request,
        **extra,
        "setup_s": round(setup_s, 2),
        "window_s": round(seconds, 2),
        "tables_created": figures.tables_created,
        "tables_started": figures.tables_started,
        "connections": opened,
        "connections_failed": figures.connections_failed,
        "connect_errors": figures.connect_errors,
        "actions": len(acks),
        "actions_sent": sent_in_window,
        "actions_per_s": round(len(acks) / seconds, 1),
        "refusals": sum(figures.refusals.values()),
        "refusal_reasons": dict(sorted(figures.refusals.items())),
        "late_actions": figures.late,
        "rounds_completed": figures.rounds_completed,
        "messages_received": figures.messages_received,
        "unmatched_events": figures.unmatched_events,
        "ack_ms": percentiles(acks),
        "fanout_ms": percentiles(fanout),
        "server_action_ms": server_latency,
        "server_gc": server_gc,
        "server_loop_lag_ms": server_loop_lag,
        "loadtest_loop_lag_ms": percentiles(lags),
        "loadtest_gc_ms": {
            "collections": len(gc_pauses),
            "total": round(1000 * sum(gc_pauses), 1),
            "max": round(1000 * max(gc_pauses, default=0.0), 2),
        },
        "errors": errors,
        "error_kinds": dict(sorted(figures.errors.items())),
        "error_samples": figures.error_samples,
        "cpu": cpu.figures,
        "server_memory": {
            "source": memory.source,
            "rss_before_bytes": before,
            "rss_after_bytes": after,
            "peak_bytes": memory.peak,
            "per_connection_bytes": per_connection,
        },
    }
    report["targets"] = _targets(report)
    return report


def within(sent: array[float], latency: array[float], start: float, end: float) -> list[float]:
    """The latencies of the actions sent within [start, end)."""
    return [late for at, late in zip(sent, latency, strict=True) if start <= at < end]


def _targets(report: dict[str, Any]) -> dict[str, bool | None]:
    ack, fanout = report["ack_ms"]["p99"], report["fanout_ms"]["p99"]
    per_connection = report["server_memory"]["per_connection_bytes"]
    return {
        "ack_p99_under_50ms": None if ack is None else ack < TARGETS["ack_p99_ms"],
        "fanout_p99_under_100ms": None if fanout is None else fanout < TARGETS["fanout_p99_ms"],
        "zero_errors": report["errors"] == TARGETS["errors"],
        "memory_under_100KiB_per_connection": (
            None if per_connection is None else per_connection < TARGETS["server_bytes_per_connection"]
        ),
    }


def format_report(report: dict[str, Any]) -> str:
    """The report for people."""
    ack, fan, lag = report["ack_ms"], report["fanout_ms"], report["loadtest_loop_lag_ms"]
    memory = report["server_memory"]

    def kib(value: int | None) -> str:
        return "unknown" if value is None else f"{value / 1024:,.0f} KiB"

    lines = [
        f"load test: {report['tables']} tables x {report['players']} players, level {report['level']}, "
        f"{report['window_s']} s measured (set-up {report['setup_s']} s)",
        f"connections   {report['connections']} opened, {report['connections_failed']} failed; "
        f"tables started {report['tables_started']}/{report['tables']}",
        f"actions       {report['actions']} acknowledged, {report['actions_per_s']}/s; "
        f"{report['refusals']} refused {report['refusal_reasons'] or ''}; {report['late_actions']} late; "
        f"{report['rounds_completed']} rounds completed",
        f"ack           p50 {ack['p50']} ms, p95 {ack['p95']} ms, p99 {ack['p99']} ms, max {ack['max']} ms",
        f"fan-out       p50 {fan['p50']} ms, p95 {fan['p95']} ms, p99 {fan['p99']} ms, max {fan['max']} ms",
        f"server        handling {report['server_action_ms']}; CPU {report['cpu']}",
        f"server GC     {_gc_line(report['server_gc'])}",
        f"server loop   late by {_lag_line(report['server_loop_lag_ms'])}",
        f"client loop   late by p99 {lag['p99']} ms, max {lag['max']} ms (inflates the latencies above); "
        f"GC {report['loadtest_gc_ms']}",
        f"errors        {report['errors']} {report['error_kinds'] or ''}",
    ]
    lines.extend(f"              {sample}" for sample in report["error_samples"][:5])
    flood = report.get("flood")
    if flood:
        lines.append(
            f"flood         {flood['clients']} flooding clients offered {flood['offered_per_s']:,} messages/s "
            f"over {flood['connections_per_s']} connections/s (closed: {flood['close_codes']})"
        )
    if memory["source"] is None:
        lines.append(
            "server memory unknown: the server does not export process_resident_memory_bytes; "
            "run the load test on the server's machine with --server-pid PID"
        )
    else:
        lines.append(
            f"server memory {kib(memory['rss_before_bytes'])} before, {kib(memory['rss_after_bytes'])} after, "
            f"{kib(memory['per_connection_bytes'])} per connection (from {memory['source']})"
        )
    met = ", ".join(
        f"{name}: {'yes' if ok else 'no' if ok is not None else '?'}" for name, ok in report["targets"].items()
    )
    lines.append(f"targets       {met}")
    return "\n".join(lines)


def _gc_line(gc_report: dict[str, Any]) -> str:
    if not any(g["collections"] for g in gc_report.values()):
        return "no collections reported (the server does not export ligretto_gc_pause_seconds?)"
    return "; ".join(
        f"gen {generation}: {g['collections']} in {g['total_ms']} ms"
        + (f", longest under {g['longest_under_ms']:g} ms" if g["longest_under_ms"] is not None else "")
        for generation, g in gc_report.items()
    )
