"""The client side of a round, for every Python client (terminal, load test, tests).

No UI, no server: it depends on the engine only.  :class:`Mirror` is a round as one seat
(or a spectator) sees it, kept up to date from the protocol's snapshot and events;
:class:`MirrorObservation` lets a bot strategy choose on it.
"""

from ligretto.client.mirror import NEW_PILE, Area, Mirror, Pile, face, wire_pile
from ligretto.client.observation import MirrorObservation, action_message

__all__ = ["NEW_PILE", "Area", "Mirror", "MirrorObservation", "Pile", "action_message", "face", "wire_pile"]
