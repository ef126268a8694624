"""``ligretto loadtest``: many real WebSocket clients playing at a human pace against a
server, and the latencies they measure (docs/benchmarks.md).

Not part of the server: it talks to one only over HTTP and WebSockets.  ``run`` sets up
the tables and the measuring window and holds the command; ``client`` is one player (the
client model of ``ligretto.client`` and the greedy bot's strategy); ``figures`` counts
and reports; ``probes`` reads the server's memory, CPU and ``/metrics``.
"""

from ligretto.harness.run import main, run_loadtest, server_urls

__all__ = ["main", "run_loadtest", "server_urls"]
