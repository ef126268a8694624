"""A round of Ligretto: the authoritative state, its set-up, actions and round end.

:class:`Round` applies one player's action at a time; simultaneity lives
outside (the simulator orders by virtual time, the server by arrival).  Every
action returns :class:`Applied` with its events or :class:`Refused` with a
reason, and a refused action changes nothing.

Representation (chosen for the simulator's hot path): each player's cards are
faces (``colour * 10 + number - 1``) in plain lists with the top card last;
a center pile is its colour plus the seats of its cards, bottom first;
``wanted[face]`` lists, in ascending order, the piles that accept that face
(``-1``, "new pile", for every 1).
"""

from __future__ import annotations

import functools
from bisect import insort

from ligretto.engine.actions import Action, Place, Play, Source, Turn, Vote, Withdraw, simple_actions
from ligretto.engine.area import Area
from ligretto.engine.cards import CARDS, DECK_SIZE, MAX_PLAYERS, MIN_PLAYERS, NUMBERS, Card, fits, goes_on
from ligretto.engine.events import (
    REFUSALS,
    Applied,
    CardPlaced,
    CardPlayed,
    Ending,
    Event,
    HandRecycled,
    HandTurned,
    Outcome,
    PileCompleted,
    PileStarted,
    Reason,
    Refused,
    Result,
    RoundStopped,
    RowRefilled,
    VoteCast,
    VotesCleared,
    VoteWithdrawn,
)
from ligretto.engine.hand import PACKET, shuffled, turn_hand
from ligretto.engine.rules import RuleError, RuleSet
from ligretto.engine.stalemate import HELD, ROW, STACK, Witness, find_witness, witness_holds

STACK_SIZE = 10
MAX_PILES = 4 * MAX_PLAYERS
"""Every pile starts with a 1 and there are four 1s per deck."""
NEW_PILE = -1
_TURN_PROOF = frozenset((ROW, STACK, HELD))
"""Witness kinds that the owner's turning of the hand cannot invalidate."""


def deal_area(seed: int, seat: int, row_length: int) -> Area:
    """Shuffle only this player's deck (RULES.md §2) and lay out row, stack and hand."""
    deck = shuffled(list(range(DECK_SIZE)), f"ligretto:{seed}:deal:{seat}")
    row = [[face] for face in deck[:row_length]]
    stack = deck[row_length : row_length + STACK_SIZE]
    hand = deck[row_length + STACK_SIZE :]
    return Area(row, stack, hand, [])


@functools.cache
def _play_table(player: int, row_length: int) -> tuple[tuple[Play, ...], ...]:
    """Interned plays: ``table[source_slot][pile]``; slot ``row_length`` is the stack,
    ``row_length + 1`` the discard; pile index ``-1`` (the last entry) is a new pile."""
    slots = [*((Source.ROW, p) for p in range(row_length)), (Source.STACK, 0), (Source.DISCARD, 0)]
    return tuple(
        (*(Play(player, src, pile, pos) for pile in range(MAX_PILES)), Play(player, src, None, pos))
        for src, pos in slots
    )


@functools.cache
def _place_table(player: int, row_length: int) -> tuple[tuple[Place, ...], ...]:
    return tuple(tuple(Place(player, src, c) for c in range(row_length)) for src in (Source.STACK, Source.DISCARD))


class Round:
    """The authoritative state of one round."""

    __slots__ = (
        "rules",
        "players",
        "seed",
        "areas",
        "pile_colours",
        "pile_seats",
        "wanted",
        "ending",
        "stopped_by",
        "votes",
        "center_size",
        "log",
        "_witness",
        "_row_length",
        "_expert",
        "_tables",
        "_simple",
    )

    def __init__(self, rules: RuleSet, players: int, seed: int, areas: list[Area]) -> None:
        """Assemble a round from laid-out areas; use :meth:`deal` to start a fresh one.

        Hand-built positions (tests, :mod:`ligretto.engine.notation`) may use any row
        length from 1 to 5; :meth:`deal` uses the one the rules give.
        """
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RuleError(f"players must be {MIN_PLAYERS}-{MAX_PLAYERS}, not {players}")
        if len(areas) != players:
            raise ValueError(f"{players} players need {players} areas, not {len(areas)}")
        self.rules = rules
        self.players = players
        self.seed = seed
        self.areas = areas
        self.pile_colours: list[int] = []
        self.pile_seats: list[list[int]] = []
        """For each pile, the seat of each of its cards, the 1 first; the top number is the length."""
        self.wanted: list[list[int]] = [[NEW_PILE] if f % NUMBERS == 0 else [] for f in range(DECK_SIZE)]
        self.ending: Ending | None = None
        self.stopped_by: int | None = None
        self.votes = sum(area.voted for area in areas)
        """How many players currently vote to end a stalemate."""
        self.center_size = 0
        """Cards in the center: grows with every play, so watchers can notice change cheaply."""
        self.log: list[Action] = []
        """Every action given to :meth:`apply`, in order (refused ones too): with rules and seed, a replay."""
        self._witness: Witness | None = None
        self._row_length = len(areas[0].row)
        if any(len(area.row) != self._row_length for area in areas) or not 1 <= self._row_length <= 5:
            raise ValueError("every row must have the same number of columns, 1 to 5")
        self._expert = rules.expert
        self._tables = [_play_table(seat, self._row_length) for seat in range(players)]
        self._simple = [simple_actions(seat) for seat in range(players)]

    @classmethod
    def deal(cls, rules: RuleSet, players: int, seed: int) -> Round:
        """Set up a new round for ``players`` players, every deck shuffled from ``seed``."""
        row_length = rules.row_length(players)
        areas = [deal_area(seed, seat, row_length) for seat in range(players)]
        return cls(rules, players, seed, areas)

    # --- reading the state -------------------------------------------------------------

    def add_pile(self, colour: int, seats: list[int]) -> int:
        """Lay a center pile of ``colour`` from 1 up, card ``n`` owned by ``seats[n - 1]``
        (for positions built by hand and restored states); returns its index."""
        if not 1 <= len(seats) <= NUMBERS or not all(0 <= s < self.players for s in seats):
            raise ValueError(f"a pile holds 1-10 cards of seats 0-{self.players - 1}, not {seats}")
        pile = len(self.pile_seats)
        self.pile_colours.append(colour)
        self.pile_seats.append(list(seats))
        if len(seats) < NUMBERS:
            insort(self.wanted[colour * NUMBERS + len(seats)], pile)
        self.center_size += len(seats)
        self._witness = None
        return pile

    @property
    def row_length(self) -> int:
        return self._row_length

    @property
    def over(self) -> bool:
        return self.ending is not None

    @property
    def outcome(self) -> Outcome | None:
        """How the round ended, or ``None`` while it is being played."""
        return None if self.ending is None else Outcome(self.ending, self.stopped_by)

    def card(self, seat: int, face: int) -> Card:
        """The public card for ``face`` of ``seat``'s deck."""
        return CARDS[seat][face]

    def pile_top(self, pile: int) -> int:
        """The top number of a center pile (1-10)."""
        return len(self.pile_seats[pile])

    def fits(self, face: int) -> bool:
        """Whether a face can go to the center now (a 1 always can)."""
        return bool(self.wanted[face])

    def copy(self) -> Round:
        other = Round(self.rules, self.players, self.seed, [a.copy() for a in self.areas])
        other.pile_colours = list(self.pile_colours)
        other.pile_seats = [list(p) for p in self.pile_seats]
        other.wanted = [list(w) for w in self.wanted]
        other.ending, other.stopped_by, other.votes = self.ending, self.stopped_by, self.votes
        other.center_size = self.center_size
        other.log = list(self.log)
        other._witness = self._witness
        return other

    # --- legal actions -----------------------------------------------------------------

    def legal_actions(self, player: int) -> list[Action]:
        """Every action ``player`` may take now that would be applied.

        Plays come first (row, stack, discard; every fitting pile), then placements
        (expert), then turning the hand and the stalemate vote or its withdrawal.
        """
        if self.ending is not None:
            return []
        area = self.areas[player]
        table = self._tables[player]
        wanted = self.wanted
        actions: list[Action] = []
        slot = 0
        for column in area.row:  # a counter is cheaper than enumerate() here
            for pile in wanted[column[-1]]:
                actions.append(table[slot][pile])
            slot += 1  # noqa: SIM113
        if area.stack:
            plays = table[-2]
            for pile in wanted[area.stack[-1]]:
                actions.append(plays[pile])
        if area.discard:
            plays = table[-1]
            for pile in wanted[area.discard[-1]]:
                actions.append(plays[pile])
        if self._expert:
            self._legal_placements(player, area, actions)
        turn, vote, withdraw = self._simple[player]
        if area.hand or area.discard:
            actions.append(turn)
        actions.append(withdraw if area.voted else vote)
        return actions

    def _legal_placements(self, player: int, area: Area, actions: list[Action]) -> None:
        table = _place_table(player, self._row_length)
        for src, pile in ((0, area.stack), (1, area.discard)):
            if pile:
                face = pile[-1]
                for c, column in enumerate(area.row):
                    if goes_on(face, column[-1]):
                        actions.append(table[src][c])

    # --- applying actions --------------------------------------------------------------

    def apply(self, action: Action) -> Result:
        """Apply one player's action: :class:`Applied` with its events, or :class:`Refused`."""
        self.log.append(action)
        if self.ending is not None:
            return REFUSALS[Reason.ROUND_OVER]
        if not 0 <= action.player < self.players:
            return REFUSALS[Reason.NO_SUCH_PLAYER]
        # A chain of exact type checks: compiled, each handler is then a direct call.
        kind = type(action)
        if kind is Turn:
            return self._turn(action)  # type: ignore[arg-type]
        if kind is Play:
            return self._play(action)  # type: ignore[arg-type]
        if kind is Place:
            return self._place(action)  # type: ignore[arg-type]
        if kind is Vote:
            return self._vote(action)  # type: ignore[arg-type]
        if kind is Withdraw:
            return self._withdraw(action)  # type: ignore[arg-type]
        raise TypeError(f"not an action: {action!r}")

    def _source_pile(self, area: Area, source: Source, position: int) -> list[int] | None:
        """The list whose last card is the card at ``source``, or ``None`` for a bad position."""
        if source is Source.ROW:
            if not 0 <= position < len(area.row):
                return None
            return area.row[position]
        if source is Source.STACK:
            return area.stack
        if source is Source.DISCARD:
            return area.discard
        return None

    def _play(self, action: Play) -> Result:
        player = action.player
        area = self.areas[player]
        # 1. Find the card, and check it is the one the player means.
        cards = self._source_pile(area, action.source, action.position)
        if not cards:
            return REFUSALS[Reason.NO_SUCH_CARD]
        face = cards[-1]
        if action.card is not None:
            refusal = _check_meant(action.card, player, face)
            if refusal is not None:
                return refusal
        # 2. Check the target pile.
        pile = action.pile
        number = face % NUMBERS + 1
        if pile is None:
            if number != 1:
                return REFUSALS[Reason.NOT_A_ONE]
        else:
            if not 0 <= pile < len(self.pile_seats):
                return REFUSALS[Reason.NO_SUCH_PILE]
            top = len(self.pile_seats[pile])
            if top == NUMBERS:
                return REFUSALS[Reason.PILE_COMPLETE]
            if not fits(face, self.pile_colours[pile], top):
                return REFUSALS[Reason.DOES_NOT_FIT]
        # 3. Move the card.
        cards.pop()
        self.center_size += 1
        events: list[Event] = []
        if pile is None:
            pile = len(self.pile_seats)
            self.pile_colours.append(face // NUMBERS)
            self.pile_seats.append([player])
            insort(self.wanted[face + 1], pile)
            events.append(PileStarted(pile, self.card(player, face).colour))
        else:
            seats = self.pile_seats[pile]
            seats.append(player)
            self.wanted[face].remove(pile)
            if number < NUMBERS:
                insort(self.wanted[face + 1], pile)
        deck = CARDS[player]
        events.append(
            CardPlayed(
                player,
                deck[face],
                action.source,
                action.position,
                pile,
                number == 1,
                deck[cards[-1]] if cards else None,
            )
        )
        if number == NUMBERS:
            events.append(PileCompleted(pile))
        # 4. Refill an emptied row column from the stack.
        if not cards and action.source is Source.ROW and area.stack:
            refill = area.stack.pop()
            cards.append(refill)
            events.append(
                RowRefilled(player, action.position, deck[refill], deck[area.stack[-1]] if area.stack else None)
            )
        return self._after_card_moved(player, area, events)

    def _place(self, action: Place) -> Result:
        if not self.rules.expert:
            return REFUSALS[Reason.NOT_EXPERT]
        player = action.player
        area = self.areas[player]
        if action.source is Source.ROW:
            return REFUSALS[Reason.BAD_SOURCE]
        if not 0 <= action.column < len(area.row):
            return REFUSALS[Reason.NO_SUCH_COLUMN]
        cards = self._source_pile(area, action.source, 0)
        if not cards:
            return REFUSALS[Reason.NO_SUCH_CARD]
        face = cards[-1]
        if action.card is not None:
            refusal = _check_meant(action.card, player, face)
            if refusal is not None:
                return refusal
        column = area.row[action.column]
        if not goes_on(face, column[-1]):
            return REFUSALS[Reason.DOES_NOT_FIT]
        column.append(cards.pop())
        deck = CARDS[player]
        events: list[Event] = [
            CardPlaced(player, deck[face], action.source, action.column, deck[cards[-1]] if cards else None)
        ]
        return self._after_card_moved(player, area, events)

    def _after_card_moved(self, player: int, area: Area, events: list[Event]) -> Applied:
        """Common end of a play or placement: lapsed votes, then Stop or the stalemate proof.

        A moved card clears every vote before anything else, also the play that ends
        the round: a stopped round keeps no vote that its events did not show."""
        area.moves += 1
        if self.votes:
            for a in self.areas:
                a.voted = False
            self.votes = 0
            events.append(VotesCleared())
        if not area.stack:
            self._end(Ending.STOP, player, events)
            return Applied(tuple(events))
        self._check_stalemate(events)
        return Applied(tuple(events))

    def _turn(self, action: Turn) -> Result:
        player = action.player
        area = self.areas[player]
        hand = area.hand
        discard = area.discard
        area.moves += 1
        if len(hand) >= PACKET:
            # The common case, kept short: three cards from hand to discard, the third on top.
            discard += hand[: -PACKET - 1 : -1]
            del hand[-PACKET:]
            turned = HandTurned(player, PACKET, CARDS[player][discard[-1]])
            # Turning changes only this player's discard top and move count, so a
            # witness of another seat, or of a row, stack or held card, still holds.
            witness = self._witness
            if witness is not None and (witness[1] != player or witness[0] in _TURN_PROOF):
                return Applied((turned,))
            events: list[Event] = [turned]
        elif not hand and not discard:
            area.moves -= 1
            return REFUSALS[Reason.NOTHING_TO_TURN]
        else:
            events = self._turn_short(player, area)
        witness = self._witness
        if witness is None or not witness_holds(self.areas, self.wanted, witness):
            self._check_stalemate(events)
        return Applied(tuple(events))

    def _turn_short(self, player: int, area: Area) -> list[Event]:
        """Turning with fewer than 3 cards in the hand: ``short_turn`` and ``recycle_shuffle``."""
        rules = self.rules
        shuffle_key = None
        if rules.recycle_shuffle:
            shuffle_key = f"ligretto:{self.seed}:recycle:{player}:{area.recycles}"
        recycled, count = turn_hand(area.hand, area.discard, rules.short_turn, shuffle_key)
        turned = HandTurned(player, count, CARDS[player][area.discard[-1]])
        if not recycled:
            return [turned]
        area.recycles += 1
        return [HandRecycled(player, recycled, shuffle_key is not None), turned]

    def _vote(self, action: Vote) -> Result:
        player = action.player
        area = self.areas[player]
        if area.voted:
            return REFUSALS[Reason.ALREADY_VOTED]
        area.voted = True
        self.votes += 1
        events: list[Event] = [VoteCast(player)]
        if self.votes == self.players:
            self._end(Ending.STALEMATE_VOTE, None, events)
        return Applied(tuple(events))

    def _withdraw(self, action: Withdraw) -> Result:
        player = action.player
        area = self.areas[player]
        if not area.voted:
            return REFUSALS[Reason.NOT_VOTED]
        area.voted = False
        self.votes -= 1
        return Applied((VoteWithdrawn(player),))

    # --- round end ---------------------------------------------------------------------

    def _end(self, ending: Ending, player: int | None, events: list[Event]) -> None:
        self.ending = ending
        self.stopped_by = player
        events.append(RoundStopped(ending, player))

    def _check_stalemate(self, events: list[Event]) -> None:
        witness = self._witness
        if witness is not None and witness_holds(self.areas, self.wanted, witness):
            return
        witness = find_witness(self.areas, self.wanted, self.rules)
        self._witness = witness
        if witness is None:
            self._end(Ending.STALEMATE_PROVEN, None, events)

    def stalemate_proven(self) -> bool:
        """Whether the engine can prove that no card can ever be played again."""
        return find_witness(self.areas, self.wanted, self.rules) is None

    def end_if_stalemate(self) -> Result:
        """End the round now if it is a proven stalemate (for positions built by hand)."""
        events: list[Event] = []
        if self.ending is None:
            self._check_stalemate(events)
        return Applied(tuple(events))


def _check_meant(card: Card, player: int, face: int) -> Refused | None:
    if card.owner != player:
        return REFUSALS[Reason.NOT_YOUR_CARD]
    if card.face != face:
        return REFUSALS[Reason.CARD_MOVED]
    return None
