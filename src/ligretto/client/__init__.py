"""The client side of the protocol, for every Python client (terminal, load test, tests).

No UI, no server, no transport: it depends on the engine and the protocol only.
:class:`Session` is one seat (or a spectator) at a table over the protocol, fed the
server's messages and writing the client's (sans-I/O); :class:`Mirror` is a round as one
seat (or a spectator) sees it, kept up to date from the protocol's snapshot and events;
:class:`MirrorObservation` lets a bot strategy choose on it.
"""

from ligretto.client.mirror import NEW_PILE, Area, Mirror, Pile, face, wire_pile
from ligretto.client.observation import MirrorObservation, action_message
from ligretto.client.session import Answer, InFlight, Session

__all__ = [
    "NEW_PILE",
    "Answer",
    "Area",
    "InFlight",
    "Mirror",
    "MirrorObservation",
    "Pile",
    "Session",
    "action_message",
    "face",
    "wire_pile",
]
