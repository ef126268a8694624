"""A client's address as every limit and every relay counts it, in one place."""

from __future__ import annotations

from starlette.datastructures import Address


def address_of(client: Address | None) -> str:
    """The client's address as the limits count it: its host (behind a trusted proxy,
    uvicorn has put the forwarded one there already); ``"unknown"`` if there is none."""
    return "unknown" if client is None else client.host
