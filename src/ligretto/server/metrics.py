"""What ``/metrics`` exports, in the Prometheus text format (prometheus_client)."""

from __future__ import annotations

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


def render() -> bytes:
    return generate_latest(REGISTRY)
