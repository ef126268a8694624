"""A score keeper's sheet as CSV, and read back: the same rounds for every scoring
option, names a spreadsheet would take for formulas kept apart, a CSV of another form
refused."""

from __future__ import annotations

import pytest
from keepersheets import ONE, THREE, TWO

from ligretto.engine.events import Ending
from ligretto.engine.rules import RuleSet
from ligretto.engine.tally import Tally, tally_scores
from ligretto.server.records.keepercsv import CsvError, read_csv, sheet_csv


@pytest.mark.parametrize(
    "options",
    [{}, {"stack_penalty": 3}, {"floor_at_zero": True}, {"scoring": "first_out"}],
)
def test_the_csv_reads_back_as_the_same_rounds(options: dict[str, object]) -> None:
    rules = RuleSet().replace(**options)
    rounds = [ONE, TWO, THREE]
    if options.get("scoring") == "first_out":
        rounds.append(Tally((), (), Ending.STOP, 2))
    names = ("Alice", "=SUM(A1)", "'quoted")
    text = sheet_csv(rules, names, rounds)
    assert read_csv(text, names) == rounds
    lines = text.splitlines()
    assert lines[0] == "round,player,center,stack,score,total,ending,stopped"
    assert lines[2].startswith("1,'=SUM(A1),11,3,")
    scores = tally_scores(rules, ONE, 3)
    assert [int(line.split(",")[4]) for line in lines[1:4]] == [s.score for s in scores]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("round,player\n", "the first row is"),
        ("round,player,center,stack,score,total,ending,stopped\n2,Alice,1,1,0,0,stop,0\n", "in order"),
        ("round,player,center,stack,score,total,ending,stopped\n1,Alice,x,1,0,0,stop,0\n", "not a whole number"),
        ("round,player,center,stack,score,total,ending,stopped\n1,Zed,1,1,0,0,stop,0\n", "not 'Alice'"),
    ],
)
def test_a_csv_not_of_this_form_is_refused(text: str, words: str) -> None:
    with pytest.raises(CsvError, match=words):
        read_csv(text, ("Alice",))
