"""The defaults of the server's admission limits, in one place (no imports: the command
line reads them for its help and defaults without loading the server).  Each is a field
of ``Settings`` and an option of ``ligretto serve``; 0 turns a limit off
(docs/protocol.md, Limits).  The two figures a client needs to know as well, the
``hello`` deadline and the length of a lobby list, are the protocol's (``protocol.HELLO_S``,
``protocol.LOBBY_TABLES``)."""

MAX_CONNECTIONS = 10_000
"""Open WebSockets (``/ws`` and ``/ws/lobby``) in all."""
CONNECTIONS_PER_ADDRESS = 100
"""Open WebSockets from one client address."""
TABLES_PER_MINUTE = 30
"""Tables (tutorials included) one client address may create in any 60 seconds."""
REQUEST_TIMEOUT_S = 10.0
"""Seconds an HTTP request may take to arrive whole."""
MAX_HEADER_BYTES = 16 * 1024
"""Bytes of an HTTP request line and headers at most."""
KEEP_ALIVE_S = 5
"""Seconds an idle HTTP keep-alive connection stays open."""
