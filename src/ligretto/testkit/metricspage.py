"""The one reader of a server's Prometheus page (``GET /metrics``) for the harness and the
tests: its samples by name and labels, parsed with prometheus_client's own parser."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families


def sample_key(name: str, labels: dict[str, str]) -> str:
    """``name{a="1",b="2"}`` with the labels sorted by name (``name`` alone without any),
    the key :func:`samples` files a sample under."""
    if not labels:
        return name
    return name + "{" + ",".join(f'{label}="{value}"' for label, value in sorted(labels.items())) + "}"


def samples(text: str) -> dict[str, float]:
    """Every sample of a Prometheus text page, by :func:`sample_key`."""
    return {
        sample_key(found.name, found.labels): float(found.value)
        for family in text_string_to_metric_families(text)
        for found in family.samples
    }
