"""The terminal client: play Ligretto in a terminal, locally against bots or at a server table.

One client model (``model``, with its copy of the round in ``ligretto.client``) is fed by the
protocol messages of docs/protocol.md; two transports deliver them: ``local`` runs a
server ``Table`` in this process (bots play as they do on the server, with the same
engine) and ``remote`` speaks the same protocol over a WebSocket.  ``app``, ``widgets``
and ``screens`` are the Textual user interface, ``faces`` draws cards, ``keys`` holds the
bindings shared with the browser client, ``commands`` checks the command line.
"""
