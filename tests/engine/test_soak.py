"""Soak test: 5,040 seeded random-play rounds in the suite, 120 for every preset × player
count (``LIGRETTO_SOAK_ROUNDS`` sets another number per case: 240 were the suite's until
its time had to shrink; run more for a longer soak).

Random play: a uniformly random seat takes a uniformly random legal action, except
that Vote and Withdraw are taken only with probability 1/200 when offered (else left
out), so most rounds run to a Stop or to a proven stalemate.  Every action must be
applied, no exception may escape, and every round must end (Stop, vote or proven
stalemate) within ``ACTION_CAP`` picks.

Checks, chosen to fit in a few minutes on two cores:

* every 4th round (1,260 rounds): the full ``check_invariants`` after every action;
* the other rounds: the cheap ``check_conservation`` (40 cards per seat, empty stacks,
  ending) after every action and the full ``check_invariants`` on the final state;
* every 4th round also: the final views hide every hidden card (RULES.md §9), and a
  replay of the action log gives the identical final state;
* every round: after the end every action is refused and changes nothing (§4);
  a Stop leaves exactly the caller's stack empty (§4);
* every proven stalemate is checked by brute force: each seat turns its hand many
  times and never gets a play or a placement (§4: "never end a round that could
  still go on");
* in the base game the stalemate proof is exact (§4), so a round that had to be
  ended by vote must not have been stuck: some seat can still play after turning;
* each preset × player count ends mostly in Stops (at least half of its rounds).

Ending counts are printed per case (run with ``-rP`` or ``-s`` to see them) and
recorded as the ``endings`` property (``--junitxml``).
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from ligretto.engine import (
    PRESETS,
    Action,
    Ending,
    Place,
    Play,
    Refused,
    Round,
    RoundRecord,
    RuleSet,
    Source,
    Turn,
    Vote,
    Withdraw,
    replay,
)

try:
    from invariants import check_conservation, check_invariants, check_views, same_state, without_log
except ImportError:  # tests/engine imported as a package
    from .invariants import check_conservation, check_invariants, check_views, same_state, without_log

PLAYER_COUNTS = (2, 3, 4, 5, 8, 12)
ROUNDS_PER_CASE = int(os.environ.get("LIGRETTO_SOAK_ROUNDS", "120"))
"""7 presets × 6 player counts × 120 = 5,040 rounds."""
FULL_CHECK_EVERY = 4
"""Rounds with index divisible by this get the full invariants after every action."""
VOTE_CHANCE = 1 / 200
ACTION_CAP = 200_000
"""Picks (a seat and an action) before a round counts as never ending: random rounds take ~250."""
PROBE_TURNS = 200
"""Turns per seat when checking a stalemate by brute force (a hand holds at most 30 cards)."""


def pick(game: Round, rng: random.Random) -> Action | None:
    """A random seat's random legal action; votes and withdrawals only rarely."""
    seat = rng.randrange(game.players)
    legal = game.legal_actions(seat)
    if rng.random() >= VOTE_CHANCE:
        legal = [a for a in legal if not isinstance(a, (Vote, Withdraw))]
    return rng.choice(legal) if legal else None


def play_round(rules: RuleSet, players: int, seed: int, rng: random.Random, full: bool) -> Round:
    game = Round.deal(rules, players, seed)
    check_invariants(game)
    check = check_invariants if full else check_conservation
    picks = 0
    while game.ending is None:
        picks += 1
        assert picks <= ACTION_CAP, f"no end after {ACTION_CAP} picks ({len(game.log)} actions)"
        action = pick(game, rng)
        if action is None:
            continue
        result = game.apply(action)
        assert result.ok, f"legal {action} refused: {result}"
        check(game)
    check_invariants(game)
    return game


def moves_after_turning(game: Round) -> list[Action]:
    """Plays or placements some seat gets by only turning its hand (up to PROBE_TURNS times).

    While nobody plays or places a card, only turning changes anything and each seat's
    turning is independent of the others', so an empty list is strong evidence that no
    card can ever be played again.  Works on a copy whose ending is cleared before
    every look (the engine would end it again on each turn).
    """
    probe = game.copy()
    found: list[Action] = []
    for seat in range(game.players):
        area = probe.areas[seat]
        for _ in range(PROBE_TURNS + 1):
            probe.ending, probe.stopped_by = None, None
            found += [a for a in probe.legal_actions(seat) if isinstance(a, (Play, Place))]
            if found or not (area.hand or area.discard):
                break
            result = probe.apply(Turn(seat))
            assert result.ok, f"probe: Turn({seat}) refused: {result}"
        if found:
            break
    return found


def check_finished(game: Round) -> None:
    """After the end nothing is offered and every action is refused without effect."""
    assert game.ending in (Ending.STOP, Ending.STALEMATE_VOTE, Ending.STALEMATE_PROVEN), game.ending
    if game.ending is Ending.STOP:
        assert game.stopped_by is not None and not game.areas[game.stopped_by].stack
    before = without_log(game)  # the log records the refused actions too
    for seat in range(game.players):
        assert game.legal_actions(seat) == [], f"finished round offers seat {seat} actions"
        tries: list[Action] = [Turn(seat), Vote(seat), Withdraw(seat), Play(seat, Source.ROW, None, 0)]
        tries += [Play(seat, Source.STACK, pile) for pile in range(len(game.pile_seats))]
        tries += [Place(seat, Source.STACK, column) for column in range(game.row_length)]
        for action in tries:
            result = game.apply(action)
            assert isinstance(result, Refused), f"{action} applied after the end"
    assert without_log(game) == before, "a refused action after the end changed the state"


CASES = [(preset, players) for preset in PRESETS for players in PLAYER_COUNTS]


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "players"), CASES, ids=[f"{p}-{n}" for p, n in CASES])
def test_soak(preset: str, players: int, record_property: pytest.RecordProperty) -> None:
    rules = RuleSet.preset(preset)
    endings: Counter[str] = Counter()
    actions = 0
    for index in range(ROUNDS_PER_CASE):
        rng = random.Random(f"ligretto-soak:{preset}:{players}:{index}")
        seed = rng.getrandbits(48)
        where = f"{preset}, {players} players, round {index} (seed {seed})"
        full = index % FULL_CHECK_EVERY == 0
        try:
            game = play_round(rules, players, seed, rng, full)
            if full:
                check_views(game)
                replayed, _ = replay(RoundRecord.of(game))
                assert same_state(replayed, game), "replay gives another final state"
            if game.ending is Ending.STALEMATE_PROVEN:
                found = moves_after_turning(game)
                assert not found, f"proven stalemate, but turning leads to {found[0]}"
            elif game.ending is Ending.STALEMATE_VOTE and not rules.expert:
                assert moves_after_turning(game), "stuck base-game round was not proven a stalemate"
            check_finished(game)
        except AssertionError as error:
            raise AssertionError(f"{where}: {error}") from error
        endings[game.ending.value] += 1
        actions += len(game.log)
    summary = ", ".join(f"{ending.value}={endings[ending.value]}" for ending in Ending)
    print(f"soak {preset} {players} players: {ROUNDS_PER_CASE} rounds, {actions} actions: {summary}")
    record_property("endings", dict(endings))
    assert sum(endings.values()) == ROUNDS_PER_CASE
    assert endings[Ending.STOP.value] >= ROUNDS_PER_CASE // 2, f"{preset} {players}: too few Stops: {summary}"
