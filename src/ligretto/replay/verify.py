"""Verifying a replay file against the engine: deal the round again, apply every action in
order, and compare each answer and board digest and the end with the file's.

A file verifies only if everything agrees; otherwise :class:`ReplayError` names the
FIRST place that does not replay -- the deal (a changed seed or rule set), an action (its
index, its time, what the file says and what the engine says) or the end.  What verifies
is a round the engine would have played exactly so; it is not a signature: whoever has
the engine can write a different round that verifies too.
"""

from __future__ import annotations

from dataclasses import dataclass

from ligretto.engine.actions import Action, Place, Play, Source, Turn, Vote
from ligretto.engine.cards import MAX_PLAYERS, MIN_PLAYERS, Card
from ligretto.engine.events import Applied, CardPlaced, CardPlayed, Result
from ligretto.engine.rules import RuleError, RuleSet
from ligretto.engine.serial import FormatError, action_from_dict, action_to_dict
from ligretto.engine.state import Round
from ligretto.engine.views import RoundView, view
from ligretto.replay.file import End, ReplayDoc, Step, answer_of, digest, end_of, seat_doc, view_digest


class ReplayError(ValueError):
    """A replay file that does not replay.  ``index`` is the first action that does not
    (``None``: the document, the deal or the end), ``t`` its time."""

    def __init__(self, message: str, *, index: int | None = None, t: float | None = None) -> None:
        super().__init__(message)
        self.index = index
        self.t = t


@dataclass(frozen=True, slots=True)
class Frame:
    """One step of a verified replay: the board a spectator saw after action ``index``."""

    index: int
    t: float | None
    seat: int
    action: Action
    answer: str
    card: Card | None
    """The card it played or placed (from the engine's events: face up from then on)."""
    board: RoundView


@dataclass(frozen=True, slots=True)
class Verified:
    """A replay that verified: the deal, every step, the end."""

    doc: ReplayDoc
    dealt: RoundView
    frames: tuple[Frame, ...]

    @property
    def names(self) -> list[str]:
        return [seat.name for seat in self.doc.seats]

    def summary(self) -> str:
        """``verified: 212 actions, outcome stop by seat 1 (Ann), scores 9 -3 4``."""
        end = self.doc.end
        names = [printable(name) for name in self.names]
        return f"verified: {len(self.frames)} actions, outcome {outcome_text(end, names)}, scores " + " ".join(
            str(score) for score in end.scores
        )


def printable(name: str) -> str:
    """A name as printed: control characters dropped, at most 40 characters (a file may
    come from anyone)."""
    return "".join(ch for ch in name if ch.isprintable())[:40]


def outcome_text(end: End, names: list[str]) -> str:
    if end.ending is None:
        return "none (the round was not finished)"
    if end.stopped_by is None:
        return end.ending
    return f"{end.ending} by seat {end.stopped_by} ({names[end.stopped_by]})"


def describe(action: Action, card: Card | None = None, name: str | None = None) -> str:
    """An action in words: ``seat 2 (Ann) plays r5 from row 3 on pile 4``; ``card`` is the
    card it moved if the action does not name it."""
    who = f"seat {action.player}" + ("" if name is None else f" ({name})")
    moved = getattr(action, "card", None) or card
    what = "" if moved is None else f" {moved}"
    if isinstance(action, Play):
        where = "a new pile" if action.pile is None else f"pile {action.pile}"
        at = f" {action.position}" if action.source is Source.ROW else ""
        return f"{who} plays{what} from {action.source.name.lower()}{at} on {where}"
    if isinstance(action, Place):
        return f"{who} places{what} from {action.source.name.lower()} on column {action.column}"
    if isinstance(action, Turn):
        return f"{who} turns the hand"
    return f"{who} {'votes to end' if isinstance(action, Vote) else 'withdraws the vote'}"


def verify(doc: ReplayDoc) -> Verified:
    """Replay ``doc`` on the engine; the verified replay, or :class:`ReplayError`."""
    game = _deal(doc)
    dealt = view(game, None)
    if digest(game, 0) != doc.deal:
        raise ReplayError(
            f"the deal does not replay (seed or rules changed): the file says board {doc.deal}, "
            f"the engine deals board {digest(game, 0)} from seed {doc.seed}"
        )
    frames = []
    last_t = 0.0
    for index, step in enumerate(doc.actions):
        action = _action(index, step, last_t, doc.players)
        last_t = last_t if step.t is None else step.t
        at = _when(index, step)
        if game.over:
            raise ReplayError(
                f"action {at} does not replay: the file has {describe(action)} after the round ended "
                f"(the engine ended it after action {index - 1})",
                index=index,
                t=step.t,
            )
        result = game.apply(action)
        answer = answer_of(result)
        shown = view(game, None)
        board = view_digest(shown, index + 1)
        if (answer, board) != (step.answer, step.state):
            raise ReplayError(
                f"action {at}, {describe(action)}, does not replay: the file says {step.answer} "
                f"(board {step.state}), the engine says {answer} (board {board})",
                index=index,
                t=step.t,
            )
        frames.append(Frame(index, step.t, step.seat, action, answer, _moved(result), shown))
    engine_end = end_of(game)
    if engine_end != doc.end:
        raise ReplayError(
            f"the end does not replay after action {len(doc.actions) - 1}: the file says {_end_text(doc.end)}, "
            f"the engine says {_end_text(engine_end)}",
            index=None,
        )
    return Verified(doc, dealt, tuple(frames))


def _moved(result: Result) -> Card | None:
    for event in result.events if isinstance(result, Applied) else ():
        if isinstance(event, CardPlayed | CardPlaced):
            return event.card
    return None


def _deal(doc: ReplayDoc) -> Round:
    """The round dealt from the document's rules, players and seed (each checked first)."""
    if not MIN_PLAYERS <= doc.players <= MAX_PLAYERS:
        raise ReplayError(f"'players' must be {MIN_PLAYERS}-{MAX_PLAYERS}, not {doc.players}")
    if len(doc.seats) != doc.players:
        raise ReplayError(f"the file has {doc.players} players but {len(doc.seats)} seats")
    for seat, given in enumerate(doc.seats):
        if given.back != seat_doc(seat, given.name).back:
            raise ReplayError(f"seat {seat} has the back {given.back.box} {given.back.symbol}, not its deck's")
    if doc.seed < 0:
        raise ReplayError(f"'seed' must be 0 or more, not {doc.seed}")
    try:
        rules = RuleSet.from_dict(doc.rules)
        return Round.deal(rules, doc.players, doc.seed)
    except RuleError as error:
        raise ReplayError(f"the file's rules are not valid: {error}") from None


def _when(index: int, step: Step) -> str:
    return f"{index} (at {'an unknown time' if step.t is None else f'{step.t:.3f} s'})"


def _action(index: int, step: Step, last_t: float, players: int) -> Action:
    """The step's action, its seat and its time checked."""
    if not 0 <= step.seat < players:
        raise ReplayError(f"action {_when(index, step)} is by seat {step.seat}: no such seat", index=index, t=step.t)
    try:
        action = action_from_dict(step.action)
    except FormatError as error:
        raise ReplayError(f"action {_when(index, step)} is not an action: {error}", index=index, t=step.t) from None
    if action_to_dict(action) != step.action:  # nothing the engine would not read, so nothing to tamper unseen
        raise ReplayError(
            f"action {_when(index, step)} is not written as the store writes it: {action_to_dict(action)}",
            index=index,
            t=step.t,
        )
    if action.player != step.seat:
        raise ReplayError(
            f"action {_when(index, step)} is by seat {action.player} but the file gives seat {step.seat}",
            index=index,
            t=step.t,
        )
    if step.t is not None and not last_t <= step.t < float("inf"):
        raise ReplayError(
            f"action {_when(index, step)} comes before the action ahead of it ({last_t:.3f} s) or the round's start",
            index=index,
            t=step.t,
        )
    return action


def _end_text(end: End) -> str:
    outcome = "not finished" if end.ending is None else end.ending
    if end.stopped_by is not None:
        outcome += f" by seat {end.stopped_by}"
    return f"{outcome} after {end.actions} actions, scores {end.scores}, center {end.center}, stack {end.stack}"
