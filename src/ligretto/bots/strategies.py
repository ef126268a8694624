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

``seen`` is an :class:`~ligretto.engine.observation.Observation` (public information only);
``self.rng`` is the bot's own seeded ``random.Random``.  Return the next intended action,
or ``None`` to wait and look again a moment later.  One instance plays one seat for one
round, so a strategy may keep notes on ``self``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import ClassVar

from mypy_extensions import mypyc_attr

from ligretto.engine.actions import Action, Place, Play, Source, Turn, Vote
from ligretto.engine.cards import CARDS, Card
from ligretto.engine.observation import Observation


@mypyc_attr(allow_interpreted_subclasses=True)
class Strategy:
    """Base class of every bot strategy."""

    name: ClassVar[str] = "strategy"

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


@mypyc_attr(allow_interpreted_subclasses=True)
class RandomStrategy(Strategy):
    """Uniformly random over the legal actions (stalemate votes and withdrawals included)."""

    name: ClassVar[str] = "random"

    def choose(self, seen: Observation) -> Action | None:
        actions = seen.legal_actions()
        return actions[int(self.rng.random() * len(actions))] if actions else None


STUCK_PASSES = 3
"""Full passes through hand and discard, with the center unchanged, before a bot feels stuck."""


class _StuckWatch:
    """Notices a bot that has turned through its whole hand, several times, while nothing
    changed: that is when a person says "I'm stuck" and votes.  (In the base game the engine
    ends a true stalemate by itself; the vote matters in the expert variant, and when other
    players stop playing.)  A bot that has voted keeps turning: a card that fits may still
    come up, and playing it cancels every vote."""

    __slots__ = ("center", "limit", "turned")

    def __init__(self) -> None:
        self.center = -1
        self.turned = 0
        self.limit = 0

    def stuck(self, seen: Observation) -> bool:
        center = seen.center_size
        if center != self.center:
            # Hand and discard change size only when a card goes to the center: the limit
            # (a packet of three per turn) is fixed until then.
            self.center = center
            self.turned = 0
            self.limit = STUCK_PASSES * (seen.hand_size() + seen.discard_size()) + 3
        return self.turned * 3 >= self.limit

    def turning(self) -> None:
        self.turned += 1

    def when_no_play(self, seen: Observation, turn: Action | None, vote: Action | None) -> Action | None:
        """Turn the hand; once stuck, vote (once), and go on turning."""
        if vote is not None and self.stuck(seen):
            return vote
        if turn is not None:
            self.turning()
        return turn


@mypyc_attr(allow_interpreted_subclasses=True)
class GreedyStrategy(Strategy):
    """The first playable card (row, then stack, then discard), else turn the hand.

    Votes for a stalemate only once it has turned through its whole hand ``STUCK_PASSES``
    times with no change in the center, and goes on turning.
    """

    name: ClassVar[str] = "greedy"

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
        return self.watch.when_no_play(seen, turn, vote)


# Smart's preferences, lower is better.  A row or stack play is worth three points (+1 in
# the center, and the stack shrinks by one: -2 avoided); a discard play is worth one.
_STACK_PLAY = 0
_ROW_PLAY = 1
_STACK_PLACE = 2
_DISCARD_PLAY = 3
_CONTESTED = 10
"""Taken off a contested play's rank by a strategy that plays those first (``sharp``)."""
PATIENCE = 3
"""Looks a smart bot spends waiting before it turns away a discard top that is about to fit."""
SHARP_PATIENCE = 20
"""Looks a sharp bot spends waiting, while one of its cards is about to fit, before it turns
once anyway (measured in docs/bots.md: more patience pays up to about 20 looks, 3.6 s at
``expert``, and no further)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class SmartStrategy(Strategy):
    """Plays like a good human.

    - empties the Ligretto stack first: a stack play, then a row play (its gap is refilled
      from the stack), before any discard play -- 1s included, which it plays at once from
      wherever they are, in that same order;
    - in the expert variant uses the row as a buffer for the stack: puts the stack top onto
      a column before a discard play (never the discard top: that would bury a row card
      for no gain -- measured in docs/bots.md);
    - turns the hand when it has no play, but first waits a moment (up to ``PATIENCE``
      looks) when its discard top is about to fit -- the card before it is visible in
      another player's hands and a pile waits for it -- because turning would bury it;
    - votes for a stalemate only when it has no play and has turned through its whole
      hand ``STUCK_PASSES`` times since the center last changed, and goes on turning.
    Ties between equally good plays are broken at random, so two smart bots don't always
    race for the same pile.
    """

    name: ClassVar[str] = "smart"
    patience: ClassVar[int] = PATIENCE
    """Looks spent waiting for a card about to fit before turning the hand anyway."""
    contested_first: ClassVar[bool] = False
    """Whether a play another player could race it for comes before every other play."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.watch = _StuckWatch()
        self.waited = 0

    def worth_waiting(self, seen: Observation) -> bool:
        """Whether to wait a moment rather than turn the hand: my discard top is about to fit."""
        return _about_to_fit(seen, seen.discard_top())

    def choose(self, seen: Observation) -> Action | None:
        actions = seen.legal_actions()
        if not actions:
            return None
        return self.decide(seen, actions)

    def decide(self, seen: Observation, actions: list[Action]) -> Action | None:
        """The choice among ``actions``, the seat's legal actions now (not empty)."""
        if len(actions) <= 2 and type(actions[0]) is Turn:  # nothing to play: the common case
            if self.waited < self.patience and self.worth_waiting(seen):
                self.waited += 1
                return None
            self.waited = 0
            return self.watch.when_no_play(
                seen, actions[0], actions[1] if len(actions) == 2 and type(actions[1]) is Vote else None
            )
        self.waited = 0
        best: list[Action] = []
        best_rank = 99
        contested_first = self.contested_first
        turn: Action | None = None
        vote: Action | None = None
        for action in actions:
            kind = type(action)
            if kind is Play:
                source = action.source  # type: ignore[union-attr]
                rank = _STACK_PLAY if source is Source.STACK else _ROW_PLAY if source is Source.ROW else _DISCARD_PLAY
                if contested_first and _contested(seen, action):  # type: ignore[arg-type]
                    rank -= _CONTESTED
            elif kind is Place:
                if action.source is not Source.STACK:  # type: ignore[union-attr]
                    continue
                rank = _STACK_PLACE
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
        return self.watch.when_no_play(seen, turn, vote)


def _contested(seen: Observation, play: Play) -> bool:
    """Whether another player shows a card of the same face as the one ``play`` plays (their
    copy fits the same piles: whoever is quicker takes the pile).  A 1 starts a pile of its
    own and is never contested."""
    card = seen.card_at(play.source, play.position)
    return card is not None and card.number > 1 and seen.others_show(card.colour * 10 + card.number - 1)


def _nothing_to_play(actions: list[Action]) -> bool:
    """Whether ``actions`` (legal, in the engine's order: plays, placements, the rest) hold
    no play and no placement of the stack top."""
    for action in actions:
        kind = type(action)
        if kind is Play:
            return False
        if kind is Place:
            if action.source is Source.STACK:  # type: ignore[union-attr]
                return False
        else:
            return True
    return True


def _about_to_fit(seen: Observation, card: Card | None) -> bool:
    """Whether my ``card`` will probably fit in a moment: the card just below it fits the
    center now, and another player can play it."""
    if card is None or card.number < 2 or seen.fits(card):
        return False
    below = card.colour * 10 + card.number - 2
    return seen.fits(CARDS[seen.seat][below]) and seen.others_show(below)


@mypyc_attr(allow_interpreted_subclasses=True)
class SharpStrategy(SmartStrategy):
    """Smart's order of plays, with an eye on races and the patience to wait.

    - a play another player could race it for -- they show a card of the same face, which
      fits the same piles -- comes first, before every uncontested play (then smart's
      order): the uncontested pile will still be there after it, the contested one may not;
    - when it has no play, a smart bot turns the hand unless its discard top is about to
      fit; a sharp bot (even with a discard top it could put on a column, expert variant)
      also waits (up to ``SHARP_PATIENCE`` looks) while a row card or its stack top is
      about to fit -- the card just below it fits a pile and another player shows it.
      A row or stack card is worth three points, a turned-up hand card one, and
      a look costs a simple reaction where a turn costs a search of every pile
      (docs/bots.md, "Reaction model"), so it sees the awaited card land sooner and wins the
      race for the pile it opens.
    It uses only what its seat sees, like every strategy (measured in docs/bots.md).
    """

    name: ClassVar[str] = "sharp"
    patience: ClassVar[int] = SHARP_PATIENCE
    contested_first: ClassVar[bool] = True

    def choose(self, seen: Observation) -> Action | None:
        actions = seen.legal_actions()
        if not actions:
            return None
        # No play, nor a stack top to put on a column (expert), but perhaps discard-top
        # placements, which smart never makes: wait as when only turning is left.
        if self.waited < self.patience and _nothing_to_play(actions) and self.worth_waiting(seen):
            self.waited += 1
            return None
        return self.decide(seen, actions)

    def worth_waiting(self, seen: Observation) -> bool:
        if _about_to_fit(seen, seen.stack_top()) or _about_to_fit(seen, seen.discard_top()):
            return True
        return any(_about_to_fit(seen, card) for card in seen.row())


# The built-in strategies are registered by hand: a class decorator would keep them from
# being compiled (see docs/benchmarks.md).
for _builtin in (RandomStrategy, GreedyStrategy, SmartStrategy, SharpStrategy):
    STRATEGIES[_builtin.name] = _builtin
