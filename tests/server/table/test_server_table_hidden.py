"""No hidden card ever leaves a :class:`~ligretto.server.table.table.Table` (RULES.md §9),
checked at the moment each message is sent.

A table runs in-process with fake listeners (``listener.send(dict)`` is all a table
needs): two people driven by the test with random legal actions, two machine bots, a
spectator; one person drops out mid-round (a stand-in bot plays for them after the grace
period) and comes back with a new connection.  Every message any listener receives is
encoded as it would go on the wire and checked *while the table is sending it*, against
the live round ``table.game``:

* no key that would carry hidden cards (hand, stack, discard as lists, log, seed);
* every card-like string sits where a view or an event names a card of a known seat;
* every card named is face up right now -- a row card, a stack top, a discard top or a
  center card -- and never a hand card, a stack card below the top or a discard card
  below the top.
"""

from __future__ import annotations

import json
import logging
import random
from typing import Any

import pytest

from ligretto import protocol
from ligretto.engine.actions import Play, Turn, Vote, Withdraw
from ligretto.engine.rules import RuleSet
from ligretto.engine.state import Round
from ligretto.protocol import Phase
from ligretto.server.table.clock import VirtualScheduler
from ligretto.server.table.table import Table, TableError
from ligretto.testkit.scans import hidden_cards, public_cards


class Spy:
    """A fake connection that checks every message against the live round as it arrives."""

    def __init__(self, table: Table, label: str, mentions: Any, forbidden_keys: Any) -> None:
        self.table = table
        self.label = label
        self.seat: int | None = None
        self.messages: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.cards_checked = 0
        self._mentions = mentions
        self._forbidden = forbidden_keys

    def detach(self) -> None:
        self.seat = None

    def send(self, message: dict[str, Any]) -> None:
        wire = json.loads(protocol.wire(message))  # exactly what would go out
        self.messages.append(wire)
        keys = self._forbidden(wire)
        if keys:
            self.problems.append(f"{self.label}: hidden keys {keys} in {wire}")
        owned, stray = self._mentions(wire)
        if stray:
            self.problems.append(f"{self.label}: cards of no known seat {stray} in {wire}")
        if not owned:
            return
        game = self.table.game
        if game is None:
            self.problems.append(f"{self.label}: cards sent with no round: {wire}")
            return
        up, down = public_cards(game), hidden_cards(game)
        for card in owned:
            self.cards_checked += 1
            if card in down:
                self.problems.append(f"{self.label}: HIDDEN card {card} sent in {wire}")
            elif card not in up:
                self.problems.append(f"{self.label}: card {card} is nowhere face up, sent in {wire}")


def _choose(game: Round, seat: int, rng: random.Random) -> Any:
    actions = game.legal_actions(seat)
    plays = [a for a in actions if isinstance(a, Play)]
    if plays and rng.random() < 0.85:
        return rng.choice(plays)
    others = [a for a in actions if isinstance(a, Turn | Vote | Withdraw)]
    weights = [8 if isinstance(a, Turn) else 1 for a in others]
    return rng.choices(others, weights)[0] if others else None


def _aim(table: Table, seat: int, rng: random.Random) -> None:
    """An aim at a random place of the seat's own (an empty one is refused ``bad_aim``)."""
    source = rng.choice(["row", "stack", "discard", None])
    pile = rng.choice([None, "new", 0, 1, 2])
    try:
        table.aim(seat, source, rng.randrange(5), pile if source else None)
    except TableError as error:
        assert error.code in ("bad_aim", "not_playing"), error


def _drive(preset: str, rounds: int, seed: int, mentions: Any, forbidden_keys: Any) -> list[Spy]:
    """The match, in virtual time: the people act every 10 ms (Ann showing her aim, at
    random places, in between), the bots at their pace."""
    rules = RuleSet.preset(preset).replace(match_end=f"rounds:{rounds}")
    scheduler = VirtualScheduler()
    table = Table(
        "HIDDEN",
        seats=4,
        rules=rules,
        countdown_s=0.05,
        grace_s=0.1,
        match_seeds=lambda n: seed + n,
        scheduler=scheduler,
    )
    spies = {name: Spy(table, name, mentions, forbidden_keys) for name in ("ann", "bob", "watcher")}
    table.join(spies["ann"], "Ann")
    table.join(spies["bob"], "Bob")
    # Bots at expert speed: machine bots could end a round before Bob's connection drops.
    table.add_bot(0, "smart:expert")
    table.add_bot(0, "greedy:expert")
    table.watch(spies["watcher"])
    table.share_aim(0, True)
    table.start(0)
    rng = random.Random(seed)
    everyone = list(spies.values())
    bob_acts = 0
    away_since: float | None = None
    deadline = scheduler.now() + 25
    try:
        while table.phase is not Phase.OVER or away_since is not None:
            assert scheduler.now() < deadline, "the match did not end in time"
            game = table.game
            bob_seat = table.seats[1]
            assert bob_seat is not None
            if table.phase is Phase.PLAYING and game is not None:
                _aim(table, 0, rng)
                action = _choose(game, 0, rng)
                if action is not None:
                    table.act(0, action, client_id=f"ann-{len(game.log)}")
                if bob_seat.connected and table.phase is Phase.PLAYING:
                    action = _choose(game, 1, rng)
                    if action is not None:
                        table.act(1, action, client_id=f"bob-{bob_acts}")
                        bob_acts += 1
                    if bob_acts == 4:  # Bob's connection drops mid-round
                        table.disconnected(spies["bob"])
                        away_since = scheduler.now()
            elif table.phase is Phase.SCORING:
                for seat in (0, 1):
                    if table.phase is Phase.SCORING and not table.seats[seat].ready:  # type: ignore[union-attr]
                        table.ready(seat)
            if away_since is not None and scheduler.now() - away_since > 0.4:
                assert bob_seat.stand_in, "no stand-in after the grace period"
                back = Spy(table, "bob-back", mentions, forbidden_keys)
                table.rejoin(back, bob_seat.token)
                everyone.append(back)
                away_since = None
            scheduler.advance(0.01)
    finally:
        table.close()
    return everyone


@pytest.mark.parametrize("case", [("classic", 2, 1), ("expert", 1, 2), ("seed-es", 1, 3)], ids=lambda c: c[0])
def test_no_table_message_carries_a_hidden_card(
    case: tuple[str, int, int], mentions: Any, forbidden_keys: Any, caplog: pytest.LogCaptureFixture
) -> None:
    preset, rounds, seed = case
    caplog.set_level(logging.WARNING, logger="ligretto")
    spies = _drive(preset, rounds, seed, mentions, forbidden_keys)
    problems = [p for spy in spies for p in spy.problems]
    assert not problems, "\n".join(problems[:10])
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    labels = {spy.label for spy in spies}
    assert {"ann", "bob", "bob-back", "watcher"} <= labels, "the drop-out and return did not happen"
    watcher = next(spy for spy in spies if spy.label == "watcher")
    kinds = {m["type"] for m in watcher.messages}
    assert {"welcome", "table", "snapshot", "go", "events", "round_over", "aimed"} <= kinds
    assert not any(m["type"] == "aimed" for m in spies[0].messages), "Ann was sent her own aim"
    overs = [m for m in watcher.messages if m["type"] == "round_over"]
    assert len(overs) == rounds and overs[-1]["match_over"] is True
    assert sum(spy.cards_checked for spy in spies) > 150, "too few cards checked to mean anything"
    stand_in = [m for m in watcher.messages if m["type"] == "table" and m["seats"][1]["stand_in"]]
    assert stand_in, "no stand-in played for the missing person"
