"""A dealt round (two players, or more) set up for a race, for the tests of fair judging and of what
a lost race looks like: seat 1 can start a pile with its 1, and both seats then show the
2 of its colour (seat 0 in its row, so a key of the terminal plays it)."""

from __future__ import annotations

import json
from typing import Any

from ligretto import protocol
from ligretto.engine.actions import Play, Source
from ligretto.engine.cards import Card
from ligretto.engine.rules import RuleSet
from ligretto.engine.scoring import round_seed
from ligretto.engine.serial import action_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import AreaView, view
from ligretto.server.records.store import LoggedAction, RoundLog, RoundPlayer
from ligretto.server.web.replays import spectator_round


def visible(area: AreaView) -> list[tuple[Source, int, Card]]:
    """The cards of an area a player can play: each row column's top, the stack's top."""
    cards = [(Source.ROW, i, column[-1]) for i, column in enumerate(area.row)]
    return cards + ([(Source.STACK, 0, area.stack_top)] if area.stack_top else [])


def _twos(area: AreaView, one: Card) -> list[tuple[Source, int, Card]]:
    return [(s, p, c) for s, p, c in visible(area) if (c.colour, c.number) == (one.colour, 2)]


def a_race(rules: RuleSet, players: int = 2) -> tuple[int, Play, Play, Play]:
    """The first match seed whose round 1 of ``players`` has the race: (seed, seat 1's 1,
    seat 0's 2 from its row, seat 1's 2)."""
    for seed in range(1, 3000):
        game = Round.deal(rules, players, round_seed(seed, 1))
        for source, position, one in visible(view(game, 1).areas[1]):
            if one.number != 1:
                continue
            start = Play(1, source, None, position, one)
            after = Round.deal(rules, players, round_seed(seed, 1))
            after.apply(start)
            pile = len(after.pile_seats) - 1
            mine = [x for x in _twos(view(after, 0).areas[0], one) if x[0] is Source.ROW]
            theirs = _twos(view(after, 1).areas[1], one)
            if mine and theirs:
                (s0, p0, c0), (s1, p1, c1) = mine[0], theirs[0]
                return seed, start, Play(0, s0, pile, p0, c0), Play(1, s1, pile, p1, c1)
    raise AssertionError("no race in 3000 deals")


def raced_replay(lost_at: float = 102.5, ranks: tuple[float, float] | None = None) -> dict[str, Any]:
    """The viewer's answer of a round where Bob starts a pile, Ann's 2 lands on it at
    102.25 s and Bob's 2, refused at ``lost_at``, loses the race (:func:`a_race`; 250 ms
    later by default, the most a race may be); stored at 100 s, "go" at 101 s.  ``ranks``:
    when Ann's and Bob's 2 were ranked (``None``: stored before ranks were: as they took
    effect)."""
    rules = RuleSet()
    seed, one, ann_two, bob_two = a_race(rules)
    ann_rank, bob_rank = (None, None) if ranks is None else ranks
    actions = [
        LoggedAction(i, at, play.player, action_to_dict(play), ranked)
        for i, (play, at, ranked) in enumerate(
            [(one, 101.5, None), (ann_two, 102.25, ann_rank), (bob_two, lost_at, bob_rank)]
        )
    ]
    players = (RoundPlayer(0, "Ann", None), RoundPlayer(1, "Bob", None))
    log = RoundLog("RACE", 1, 1, rules.to_dict(), players, round_seed(seed, 1), 100.0, tuple(actions))
    answer: dict[str, Any] = json.loads(protocol.encode(spectator_round(log, 101.0)))
    return answer
