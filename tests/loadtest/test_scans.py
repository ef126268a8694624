"""The stress harness's scans: a whole round's view loses no card; one card gone or one too
many is counted."""

from __future__ import annotations

import copy
from typing import Any

from ligretto.engine.rules import RuleSet
from ligretto.engine.views import view
from ligretto.loadtest.scans import cards_lost
from positions import play_some


def _view_of_a_played_round(players: int, seed: int, rules: RuleSet | None = None) -> dict[str, Any]:
    return view(play_some(rules or RuleSet(), players, seed, 80), None).to_dict()


def test_every_card_of_a_played_round_is_in_its_view() -> None:
    for players in (2, 4, 12):
        played = _view_of_a_played_round(players, players)
        assert sum(len(pile["backs"]) for pile in played["center"]) > 0
        assert cards_lost(played) == 0
    assert cards_lost(_view_of_a_played_round(3, 7, RuleSet.preset("expert"))) == 0


def test_a_card_missing_or_extra_is_counted() -> None:
    whole = _view_of_a_played_round(4, 1)
    missing = copy.deepcopy(whole)
    missing["areas"][2]["hand_size"] -= 1
    assert cards_lost(missing) == 1
    extra = copy.deepcopy(whole)
    extra["center"].append({"index": 99, "colour": "red", "top": 1, "backs": [3]})
    assert cards_lost(extra) == 1
