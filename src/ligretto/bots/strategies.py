"""How bots choose: a strategy is a small class with one method, :meth:`Strategy.choose`.

Write your own by subclassing :class:`Strategy` and registering it::

    from ligretto.bots import Strategy, register
    from ligretto.engine import Play, Turn

    @register("cautious")
    class Cautious(Strategy):
        def choose(self, seen):
            actions = seen.legal_actions()
            plays = [a for a in actions if isinstance(a, Play)]
            return plays[-1] if plays else next((a for a in actions if isinstance(a, Turn)), None)

``seen`` is an :class:`~ligretto.bots.observation.Observation` (public information only);
``self.rng`` is the bot's own seeded ``random.Random``.  Return the next intended action,
or ``None`` to wait and look again a moment later.  One instance plays one seat for one
round, so a strategy may keep notes on ``self``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ligretto.bots.observation import Observation
from ligretto.engine.actions import Action, Place, Play, Source, Turn, Vote


class Strategy:
    """Base class of every bot strategy."""

    name = "strategy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, seen: Observation) -> Action | None:
        """The next intended action, or ``None`` to wait and look again."""
        raise NotImplementedError


STRATEGIES: dict[str, type[Strategy]] = {}
"""Every registered strategy by name (``random``, ``greedy``, ``smart`` and yours)."""


def register(name: str) -> Callable[[type[Strategy]], type[Strategy]]:
    """Class decorator: make a strategy available by name (``--bots name:level``)."""

    def add(cls: type[Strategy]) -> type[Strategy]:
        cls.name = name
        STRATEGIES[name] = cls
        return cls

    return add


@register("random")
class RandomStrategy(Strategy):
    """Uniformly random over the legal actions (stalemate votes and withdrawals included)."""

    def choose(self, seen: Observation) -> Action | None:
        actions = seen.legal_actions()
        return actions[int(self.rng.random() * len(actions))] if actions else None


class _StuckWatch:
    """Notices a bot that has turned through its whole hand while nothing changed.

    That is when a person says "I'm stuck": every card of hand and discard has been
    on top since the center last grew.
    """

    __slots__ = ("center", "turned")

    def __init__(self) -> None:
        self.center = -1
        self.turned = 0

    def stuck(self, seen: Observation) -> bool:
        center = seen.center_size
        if center != self.center:
            self.center = center
            self.turned = 0
        return self.turned * 3 >= seen.hand_size() + seen.discard_size() + 3

    def turning(self) -> None:
        self.turned += 1


@register("greedy")
class GreedyStrategy(Strategy):
    """The first playable card (row, then stack, then discard), else turn the hand.

    Votes for a stalemate only once it has turned through its whole hand with no play.
    """

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.watch = _StuckWatch()

    def choose(self, seen: Observation) -> Action | None:
        turn = vote = None
        for action in seen.legal_actions():
            kind = type(action)
            if kind is Play:
                return action
            if kind is Turn:
                turn = action
            elif kind is Vote:
                vote = action
        if turn is not None and not (vote is not None and self.watch.stuck(seen)):
            self.watch.turning()
            return turn
        return vote


# Smart's preferences, lower is better.
_STACK_PLAY = 0
_ONE = 1
_ROW_PLAY = 2
_STACK_PLACE = 3
_DISCARD_PLAY = 4
_DISCARD_PLACE = 5


@register("smart")
class SmartStrategy(Strategy):
    """Plays like a good human.

    - empties the Ligretto stack first: a stack play beats any other;
    - plays 1s at once (they can never be blocked, and a new pile helps everyone);
    - prefers plays that free a row place (the gap is refilled from the stack);
    - in the expert variant uses the row as a buffer: puts the stack top onto a column
      (progress on the stack) before a discard play, and the discard top onto a column
      to uncover the next discard card before turning;
    - turns the hand when stuck;
    - votes for a stalemate only when it has no play and has turned through its whole
      hand since the center last changed.
    Ties between equally good plays are broken at random, so two smart bots don't
    always race for the same pile.
    """

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.watch = _StuckWatch()

    def choose(self, seen: Observation) -> Action | None:
        actions = seen.legal_actions()
        if len(actions) <= 2 and type(actions[0]) is Turn:  # nothing to play: the common case
            if len(actions) == 2 and type(actions[1]) is Vote and self.watch.stuck(seen):
                return actions[1]
            self.watch.turning()
            return actions[0]
        best: list[Action] = []
        best_rank = 99
        turn = vote = None
        for action in actions:
            kind = type(action)
            if kind is Play:
                rank = _play_rank(action)  # type: ignore[arg-type]
            elif kind is Place:
                rank = _STACK_PLACE if action.source is Source.STACK else _DISCARD_PLACE  # type: ignore[union-attr]
            elif kind is Turn:
                turn = action
                continue
            elif kind is Vote:
                vote = action
                continue
            else:
                continue
            if rank < best_rank:
                best_rank, best = rank, [action]
            elif rank == best_rank:
                best.append(action)
        if best:
            return best[0] if len(best) == 1 else best[int(self.rng.random() * len(best))]
        if turn is not None and not (vote is not None and self.watch.stuck(seen)):
            self.watch.turning()
            return turn
        return vote


def _play_rank(play: Play) -> int:
    if play.source is Source.STACK:
        return _STACK_PLAY
    if play.pile is None:
        return _ONE
    if play.source is Source.ROW:
        return _ROW_PLAY
    return _DISCARD_PLAY
