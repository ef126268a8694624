"""The races scenario (``harness/races.py``): the checks can fail (a play acknowledged but
not where it should be is counted), and every racer aims for the lowest pile.  The real run
(contested plays, no card lost, every acknowledged play where it was played, nothing
crashed, no frame naming a hidden card) is ``test_scans.py``'s race, which that file's
scans are checked on too."""

from __future__ import annotations

import copy
from typing import Any

from ligretto.client.mirror import NEW_PILE, Mirror
from ligretto.engine.rules import RuleSet
from ligretto.engine.views import view
from ligretto.harness.races import AppliedPlay, acks_lost, race_action
from positions import play_some


def _played_view() -> dict[str, Any]:
    return view(play_some(RuleSet(), 3, 5, 120), None).to_dict()


def test_an_acknowledged_play_not_where_it_was_played_is_counted() -> None:
    final = _played_view()
    pile = next(p for p in final["center"] if p["top"] >= 2)
    letter = pile["colour"][0]
    kept = AppliedPlay(1, pile["backs"][1], f"{letter}2", pile["index"])
    new = AppliedPlay(1, pile["backs"][0], f"{letter}1", NEW_PILE)
    assert acks_lost([kept, new], {1: final}) == 0
    other_seat = AppliedPlay(1, (kept.seat + 1) % 3, kept.card, kept.pile)
    other_pile = AppliedPlay(1, kept.seat, kept.card, kept.pile + 1 if kept.pile + 1 < len(final["center"]) else 0)
    assert other_pile.pile != kept.pile
    assert acks_lost([other_seat], {1: final}) == 1
    assert acks_lost([kept, other_pile], {1: final}) == 1
    assert acks_lost([kept], {2: final}) == 1, "a round with no view keeps nothing"
    emptied = copy.deepcopy(final)
    next(p for p in emptied["center"] if p["index"] == kept.pile)["backs"][1:] = []
    assert acks_lost([kept], {1: emptied}) == 1


def test_every_racer_with_a_card_for_the_lowest_pile_aims_for_it() -> None:
    area = {"back": {"box": "red", "symbol": "sun"}, "stack_size": 5, "discard_top": None, "discard_size": 0}
    area |= {"hand_size": 20, "voted": False}
    data = {
        "viewer": None,
        "players": 2,
        "ending": None,
        "stopped_by": None,
        "areas": [
            {**area, "seat": 0, "row": [["g5"], ["r3"], ["b1"]], "stack_top": "y7"},
            {**area, "seat": 1, "row": [["y2"], ["b9"], ["g9"]], "stack_top": "r3"},
        ],
        "center": [
            {"index": 0, "colour": "red", "top": 2, "backs": [0, 1]},
            {"index": 1, "colour": "green", "top": 4, "backs": [1, 0, 0, 1]},
            {"index": 2, "colour": "yellow", "top": 1, "backs": [0]},
        ],
    }
    mirror = Mirror.from_view(data)
    # Seat 0 could also play g5 onto pile 1 and start a pile with b1; seat 1 could play y2.
    assert race_action(mirror, 0) == {"kind": "play", "source": "row", "position": 1, "pile": 0, "card": "r3"}
    assert race_action(mirror, 1) == {"kind": "play", "source": "stack", "position": 0, "pile": 0, "card": "r3"}
