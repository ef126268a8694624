"""``ligretto demo``: one seeded round between simple bots, printed as a score sheet.

The bots here are deliberately plain (issue 3 brings real ones): seats act in
turn, each plays the first card that fits anywhere, otherwise turns its hand,
and votes to end the round only when nothing of its own can go anywhere.
"""

from __future__ import annotations

from ligretto.engine import Play, Round, RuleSet, Turn, Vote, format_position
from ligretto.engine.actions import Action
from ligretto.engine.rules import written
from ligretto.engine.scoring import ScoreSheet

MAX_STEPS = 100_000


def first_play(game: Round, seat: int) -> Action | None:
    """The first legal play (a card to the center), else a turn, else a vote."""
    actions = game.legal_actions(seat)
    for kinds in ((Play,), (Turn,), (Vote,)):
        for action in actions:
            if isinstance(action, kinds):
                return action
    return None


def play_round(rules: RuleSet, players: int, seed: int) -> Round:
    """Let the simple bots play one round to its end."""
    game = Round.deal(rules, players, seed)
    for step in range(MAX_STEPS):
        if game.over:
            break
        action = first_play(game, step % players)
        if action is not None:
            game.apply(action)
    return game


def run(rules: RuleSet, players: int, seed: int, show_position: bool = False) -> str:
    """Play the round and return what ``ligretto demo`` prints."""
    game = play_round(rules, players, seed)
    sheet = ScoreSheet(players)
    sheet.add(game)
    names = [f"Bot {seat + 1}" for seat in range(players)]
    who = f", called by {names[game.stopped_by]}" if game.stopped_by is not None else ""
    lines = [
        f"Ligretto: {players} players, seed {seed}, rules {written(rules.changes()) or 'classic'}",
        f"The round ended by {game.ending.value.replace('_', ' ') if game.ending else '?'}{who} "
        f"after {len(game.log)} actions.",
        "",
    ]
    if show_position:
        lines += [format_position(game), ""]
    lines.append(sheet.format(names))
    return "\n".join(lines)
