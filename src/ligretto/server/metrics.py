"""What ``/metrics`` exports, in the Prometheus text format (prometheus_client)."""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

REGISTRY = CollectorRegistry()

CONNECTED_PLAYERS = Gauge("ligretto_connected_players", "Seated people with an open connection", registry=REGISTRY)
CONNECTIONS = Gauge("ligretto_connections", "Open WebSocket connections (players and spectators)", registry=REGISTRY)
OPEN_TABLES = Gauge("ligretto_open_tables", "Tables in memory", registry=REGISTRY)
ACTIONS = Counter("ligretto_actions", "Game actions handled (applied or refused)", registry=REGISTRY)
REFUSALS = Counter("ligretto_refusals", "Game actions refused by the engine (beaten to it, ...)", registry=REGISTRY)
BAD_MESSAGES = Counter(
    "ligretto_bad_messages", "Client messages rejected before reaching a table", ["code"], registry=REGISTRY
)
ACTION_LATENCY = Histogram(
    "ligretto_action_latency_seconds",
    "Time from an action's arrival to its acknowledgement being queued",
    buckets=(0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25),
    registry=REGISTRY,
)


class _ActionRate:
    """Actions per second over the last ``window`` seconds, from per-second buckets."""

    def __init__(self, window: int = 10) -> None:
        self.window = window
        self.buckets: dict[int, int] = {}

    def add(self) -> None:
        second = int(time.monotonic())
        self.buckets[second] = self.buckets.get(second, 0) + 1
        if len(self.buckets) > 2 * self.window:
            for old in [s for s in self.buckets if s < second - self.window]:
                del self.buckets[old]

    def rate(self) -> float:
        now = int(time.monotonic())
        return sum(n for s, n in self.buckets.items() if now - self.window <= s < now) / self.window


ACTION_RATE = _ActionRate()
ACTIONS_PER_SECOND = Gauge(
    "ligretto_actions_per_second", "Game actions per second over the last 10 seconds", registry=REGISTRY
)
ACTIONS_PER_SECOND.set_function(ACTION_RATE.rate)


def action(latency_s: float, refused: bool) -> None:
    """Count one game action (called by the table for every action, bots' included)."""
    ACTIONS.inc()
    ACTION_RATE.add()
    if refused:
        REFUSALS.inc()
    ACTION_LATENCY.observe(latency_s)


def render() -> bytes:
    return generate_latest(REGISTRY)
