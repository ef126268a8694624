"""What ``/metrics`` exports, in the Prometheus text format (prometheus_client)."""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Iterator
from itertools import accumulate

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

REGISTRY = CollectorRegistry()

CONNECTED_PLAYERS = Gauge("ligretto_connected_players", "Seated people with an open connection", registry=REGISTRY)
CONNECTIONS = Gauge("ligretto_connections", "Open WebSocket connections (players and spectators)", registry=REGISTRY)
OPEN_TABLES = Gauge("ligretto_open_tables", "Tables in memory", registry=REGISTRY)
PROCESS = Gauge(
    "ligretto_process",
    "This process of a service of several (--redis): 1, labelled with its id and address",
    ["process", "address"],
    registry=REGISTRY,
)
TAKE_OVERS = Counter(
    "ligretto_take_overs", "Tables this process took over from a process that died or left (--redis)", registry=REGISTRY
)
FENCED = Counter(
    "ligretto_fenced_tables",
    "Tables a commit found taken over by another process (this one stalled): their writes left out",
    registry=REGISTRY,
)
HANDED_OVER = Counter(
    "ligretto_handed_over",
    "Tables this process handed over to rebalance the service (it held more than its share)",
    registry=REGISTRY,
)
RELAYED = Counter(
    "ligretto_relayed_sockets", "WebSockets carried to the process that owns their table (--redis)", registry=REGISTRY
)
BACKEND_ERRORS = Counter(
    "ligretto_backend_errors",
    "Failed calls to the database (a commit) or to Redis (a renewal, a sweep, a lookup)",
    ["backend"],
    registry=REGISTRY,
)
UNWRITTEN = Gauge(
    "ligretto_unwritten_commits",
    "Commits of the store that failed since it last wrote (their writes kept for the next; 0: all is written)",
    registry=REGISTRY,
)
COMMITS = Counter("ligretto_store_commits", "Commits of the store that succeeded", registry=REGISTRY)
LATENCY_BUCKETS = (0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25)


class _Actions(Collector):
    """Every game action, counted in plain numbers on the way (no lock: everything runs
    on one event loop, ``/metrics`` too) and exported when ``/metrics`` is scraped as
    ``ligretto_actions_total``, ``ligretto_refusals_total`` (and by the engine's reason,
    ``ligretto_refusals_by_reason_total{reason}``) and the histogram
    ``ligretto_action_latency_seconds`` (time from an action's arrival to its
    acknowledgement being queued)."""

    def __init__(self, buckets: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.buckets = buckets
        self.counts = [0] * (len(buckets) + 1)
        self.total = 0
        self.refused = 0
        self.reasons: dict[str, int] = {}
        self.seconds = 0.0

    def add(self, latency_s: float, reason: str | None) -> None:
        """One action; ``reason``: the engine's reason if it was refused."""
        self.total += 1
        if reason is not None:
            self.refused += 1
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
        self.seconds += latency_s
        self.counts[bisect_left(self.buckets, latency_s)] += 1

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily("ligretto_actions", "Game actions handled (applied or refused)", value=self.total)
        yield CounterMetricFamily(
            "ligretto_refusals", "Game actions refused by the engine (beaten to it, ...)", value=self.refused
        )
        by_reason = CounterMetricFamily(
            "ligretto_refusals_by_reason", "Game actions refused by the engine, by its reason", labels=["reason"]
        )
        for reason, count in sorted(self.reasons.items()):
            by_reason.add_metric([reason], count)
        yield by_reason
        cumulative = list(accumulate(self.counts))
        buckets = [(str(bound), float(n)) for bound, n in zip(self.buckets, cumulative, strict=False)]
        yield HistogramMetricFamily(
            "ligretto_action_latency_seconds",
            "Time from an action's arrival to its acknowledgement being queued",
            buckets=[*buckets, ("+Inf", float(self.total))],
            sum_value=self.seconds,
        )


ACTIONS = _Actions()
REGISTRY.register(ACTIONS)
BAD_MESSAGES = Counter(
    "ligretto_bad_messages",
    "Client messages answered with an error (malformed, invalid, refused by the table, rate limited, invalid UTF-8)",
    ["code"],
    registry=REGISTRY,
)
BAD_REQUESTS = Counter(
    "ligretto_bad_requests",
    "HTTP API requests answered with an error (malformed, invalid, bad_rules, no_table, ...), by code",
    ["code"],
    registry=REGISTRY,
)
REFUSED = Counter(
    "ligretto_refused",
    "Connections and requests refused by admission control (docs/protocol.md, Limits), by error code",
    ["code"],
    registry=REGISTRY,
)
HOLDS = Histogram(
    "ligretto_hold_seconds",
    "Ack latency added by fair judging: how long a contestable play was held for rivals",
    buckets=(0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.25),
    registry=REGISTRY,
)
RACES = Counter(
    "ligretto_races", "Races for a pile decided (a play refused because another card took its place)", registry=REGISTRY
)
QUEUE_WAITING = Gauge(
    "ligretto_queue_waiting",
    "Sockets of this process waiting in the matchmaking queue or in a party",
    registry=REGISTRY,
)
QUEUE_TABLES = Counter(
    "ligretto_queue_tables", "Tables this process dealt from the matchmaking queue", registry=REGISTRY
)
LOBBY_LISTINGS = Counter(
    "ligretto_lobby_listings",
    "Times the public tables were listed (the lobby feed's ticks and new sockets, GET /api/tables)",
    registry=REGISTRY,
)
GC_PAUSES = Histogram(
    "ligretto_gc_pause_seconds",
    "Pauses of Python's garbage collector, by generation (2: a full collection)",
    ["generation"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=REGISTRY,
)

LOOP_LAG = Histogram(
    "ligretto_loop_lag_seconds",
    "How much later than asked the event loop ran a 50 ms timer (server/ops/looplag.py)",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
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


def action(latency_s: float, reason: str | None = None) -> None:
    """Count one game action (called by the table for every action, bots' included);
    ``reason``: the engine's, if it refused the action."""
    ACTIONS.add(latency_s, reason)
    ACTION_RATE.add()


def held(seconds: float) -> None:
    """One play that fair judging held ``seconds`` before it took effect."""
    HOLDS.observe(seconds)


def race() -> None:
    """One race decided (its loser refused)."""
    RACES.inc()


def render() -> bytes:
    return generate_latest(REGISTRY)
