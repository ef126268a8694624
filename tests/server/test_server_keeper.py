"""The score keeper's sheet model and its store, in process: entries, corrections,
conflicts, undo, ids applied once, a failed write, a sheet read back from its database
and the history of a match that is over (both on an SQLite file and on PostgreSQL:
``store_db``), and the CSV read back."""

from __future__ import annotations

import sqlite3

import pytest

from ligretto.engine.events import Ending
from ligretto.engine.rules import RuleSet
from ligretto.engine.tally import BadEntry, Tally, tally_scores
from ligretto.server.history import MatchFilter, matches_of
from ligretto.server.keeper import Change, Conflict, Keeper, KeptPlayer, NoRound, Sheet
from ligretto.server.keepercsv import CsvError, read_csv, sheet_csv
from ligretto.server.ratingstore import rating_of
from ligretto.server.store import Store
from pgserver import StoreDatabase

PLAYERS = (
    KeptPlayer("Alice", "red", "sun", None),
    KeptPlayer("Bob", "red", "moon", None),
    KeptPlayer("Cleo", "blue", "star", None),
)
ONE = Tally((18, 11, 9), (0, 3, 4), Ending.STOP, 0)
TWO = Tally((16, 18, 12), (2, 0, 1), Ending.STOP, 1)
THREE = Tally((10, 12, 14), (5, 4, 3), Ending.STALEMATE_VOTE, None)


def sheet(rules: RuleSet | None = None) -> Sheet:
    return Sheet("CODE", rules or RuleSet(), PLAYERS, 100.0)


def write(target: Sheet, number: int, tally: Tally, base: int | None, client_id: str) -> Change:
    change = target.entry(number, tally, base, by="Alice", client_id=client_id, now=200.0 + target.version)
    assert isinstance(change, Change), change
    target.apply(change)
    return change


def test_rounds_are_entered_corrected_and_versioned() -> None:
    kept = sheet()
    assert write(kept, 1, ONE, None, "a").kind == "entry"
    assert write(kept, 2, TWO, None, "b").kind == "entry"
    assert kept.versions == [1, 2]
    fixed = Tally((18, 12, 9), (0, 3, 4), Ending.STOP, 0)
    correction = write(kept, 1, fixed, 1, "c")
    assert (correction.kind, correction.before, correction.after) == ("correction", ONE, fixed)
    assert kept.rounds == [fixed, TWO]
    assert kept.versions == [3, 2]
    assert kept.version == 3
    first, second = tally_scores(kept.rules, fixed, 3), tally_scores(kept.rules, TWO, 3)
    assert kept.score_sheet().totals() == tuple(a.score + b.score for a, b in zip(first, second, strict=True))


def test_two_entries_of_one_round_on_the_same_base_are_a_conflict_with_both() -> None:
    kept = sheet()
    write(kept, 1, ONE, None, "a")
    other = kept.entry(1, TWO, None, by="Bob", client_id="b", now=1.0)
    assert other == Conflict(ONE, 1)
    write(kept, 2, TWO, None, "b2")
    write(kept, 2, THREE, 2, "c")  # a correction of round 2 on its version
    stale = kept.entry(2, ONE, 2, by="Bob", client_id="d", now=1.0)
    assert stale == Conflict(THREE, 3)
    assert kept.rounds == [ONE, THREE]  # nothing lost, nothing changed by the conflicts
    assert kept.version == 3


def test_undo_goes_back_one_change_at_a_time() -> None:
    kept = sheet()
    write(kept, 1, ONE, None, "a")
    write(kept, 2, TWO, None, "b")
    write(kept, 1, THREE, 1, "c")
    steps = []
    while (change := kept.undo("Bob", f"u{kept.version}", 300.0)) is not None:
        kept.apply(change)
        steps.append((change.undoes, change.round, change.before, change.after, list(kept.rounds)))
    assert steps == [
        (3, 1, THREE, ONE, [ONE, TWO]),
        (2, 2, TWO, None, [ONE]),
        (1, 1, ONE, None, []),
    ]
    assert [c.kind for c in kept.changes] == ["entry", "entry", "correction", "undo", "undo", "undo"]
    # a round written again after an undo is a new entry; undoing it takes it off again
    write(kept, 1, TWO, None, "again")
    last = kept.undo("Bob", "u-last", 400.0)
    assert last is not None and last.undoes == 7


def test_an_undone_round_written_on_its_old_version_is_a_conflict() -> None:
    kept = sheet()
    write(kept, 1, ONE, None, "a")
    write(kept, 2, TWO, None, "b")
    change = kept.undo("Bob", "u", 1.0)
    assert change is not None
    kept.apply(change)
    assert kept.entry(2, THREE, 2, by="Cleo", client_id="c", now=1.0) == Conflict(None, None)


def test_a_round_out_of_place_or_refused_changes_nothing() -> None:
    kept = sheet(RuleSet().replace(match_end="rounds:1"))
    assert isinstance(kept.entry(2, ONE, None, by="A", client_id="x", now=1.0), NoRound)
    assert isinstance(kept.entry(0, ONE, None, by="A", client_id="x", now=1.0), NoRound)
    bad = kept.entry(1, Tally((18, 11, 9), (0, 11, 4), Ending.STOP, 0), None, by="A", client_id="x", now=1.0)
    assert isinstance(bad, BadEntry) and bad.message.startswith("Bob:")
    write(kept, 1, ONE, None, "a")
    over = kept.entry(2, TWO, None, by="A", client_id="y", now=1.0)
    assert isinstance(over, BadEntry) and "the match is over after round 1" in over.message
    assert kept.standing().over and kept.standing().winners == (0,)
    assert kept.version == 1


class BrokenFile:
    errors = (sqlite3.Error,)

    def __init__(self) -> None:
        self.created: list[str] = []

    def create(self, sheet: Sheet) -> None:
        self.created.append(sheet.code)

    def write(self, sheet: Sheet, change: Change) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    def load(self, code: str) -> Sheet | None:
        return None


def test_a_change_that_cannot_be_written_is_not_made() -> None:
    keeper = Keeper(BrokenFile(), clock=lambda: 5.0)
    kept = keeper.create(RuleSet(), PLAYERS)
    change = kept.entry(1, ONE, None, by="A", client_id="a", now=5.0)
    assert isinstance(change, Change)
    with pytest.raises(sqlite3.OperationalError):
        keeper.commit(kept, change)
    assert (kept.rounds, kept.changes, kept.ids) == ([], [], set())


def test_a_sheet_is_read_back_from_its_database_as_it_was(store_db: StoreDatabase) -> None:
    store = Store(store_db.url)
    keeper = Keeper(store.sheets, clock=lambda: 50.0)
    kept = keeper.create(RuleSet().replace(stack_penalty=3), PLAYERS)
    for number, tally, base, client_id in ((1, ONE, None, "a"), (2, TWO, None, "b"), (1, THREE, 1, "c")):
        change = kept.entry(number, tally, base, by="Cleo", client_id=client_id, now=60.0)
        assert isinstance(change, Change)
        keeper.commit(kept, change)
    undo = kept.undo("Bob", "u", 70.0)
    assert undo is not None
    keeper.commit(kept, undo)
    store.close()

    again = Store(store_db.url)
    found = Keeper(again.sheets).get(kept.code)
    assert found is not None
    assert (found.rules, found.players, found.created) == (kept.rules, kept.players, kept.created)
    assert (found.rounds, found.versions, found.changes) == (kept.rounds, kept.versions, kept.changes)
    assert (found.ids, found.undone) == ({"a", "b", "c", "u"}, {3})
    assert Keeper(again.sheets).get("nope") is None
    again.close()


def test_a_match_over_is_filed_as_played_at_a_table_and_not_rated(store_db: StoreDatabase) -> None:
    store = Store(store_db.url)
    ann, _ = store.profiles.create("Ann", "sun")
    before = rating_of(store.db, ann.id)
    keeper = Keeper(store.sheets, clock=lambda: 50.0)
    players = (KeptPlayer("Ann", "red", "sun", ann.id), *PLAYERS[1:])
    kept = keeper.create(RuleSet().replace(match_end="rounds:2"), players)
    for number, tally in ((1, ONE), (2, TWO)):
        change = kept.entry(number, tally, None, by="Ann", client_id=str(number), now=60.0 + number)
        assert isinstance(change, Change)
        keeper.commit(kept, change)
        filed = matches_of(store.db, MatchFilter(ann.id))
        assert len(filed) == (1 if number == 2 else 0)
    (match,) = matches_of(store.db, MatchFilter(ann.id))
    assert (match.kind, match.rated, match.code, match.size) == ("table", False, kept.code, 3)
    assert (match.started, match.ended) == (kept.created, 62.0)
    assert match.sheet == kept.score_sheet().to_dict()
    assert match.places == list(kept.standing().places)
    assert [(p.name, p.profile) for p in match.players] == [("Ann", ann.id), ("Bob", None), ("Cleo", None)]
    assert rating_of(store.db, ann.id) == before

    # an undo that makes it not over takes it out; entered again, it is filed again
    undo = kept.undo("Ann", "u", 70.0)
    assert undo is not None
    keeper.commit(kept, undo)
    assert matches_of(store.db, MatchFilter(ann.id)) == []
    change = kept.entry(2, THREE, None, by="Ann", client_id="again", now=80.0)
    assert isinstance(change, Change)
    keeper.commit(kept, change)
    (match,) = matches_of(store.db, MatchFilter(ann.id))
    assert match.sheet == kept.score_sheet().to_dict()
    store.close()


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
