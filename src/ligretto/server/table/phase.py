"""The phases of a table, defined once: every part of the table, the store's history, the
web layer and the cluster import :class:`Phase` from here.

``lobby`` (seats fill, the host sets rules and bots) -> ``countdown`` (the round starts at
one absolute server time) -> ``playing`` -> ``scoring`` (the score sheet; every seated
person marks ready) -> ``countdown`` ... -> ``over`` (the match result; the host may
start a rematch).  The wire's names are the same strings (``protocol.PhaseName``).
"""

from __future__ import annotations

import enum


class Phase(enum.StrEnum):
    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    PLAYING = "playing"
    SCORING = "scoring"
    OVER = "over"
