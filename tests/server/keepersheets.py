"""The players and rounds the score keeper's in-process tests share."""

from __future__ import annotations

from ligretto.engine.events import Ending
from ligretto.engine.tally import Tally
from ligretto.server.records.keeper import KeptPlayer

PLAYERS = (
    KeptPlayer("Alice", "red", "sun", None),
    KeptPlayer("Bob", "red", "moon", None),
    KeptPlayer("Cleo", "blue", "star", None),
)
ONE = Tally((18, 11, 9), (0, 3, 4), Ending.STOP, 0)
TWO = Tally((16, 18, 12), (2, 0, 1), Ending.STOP, 1)
THREE = Tally((10, 12, 14), (5, 4, 3), Ending.STALEMATE_VOTE, None)
