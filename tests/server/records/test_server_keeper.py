"""The score keeper's sheet model, in process: entries, corrections, conflicts, undo,
the end of the match, a seat's profile linked and unlinked by its owner (or the
creator before the end), a write that fails."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from keepersheets import ONE, PLAYERS, THREE, TWO

from ligretto.engine.events import Ending
from ligretto.engine.rules import RuleSet
from ligretto.engine.tally import BadEntry, Tally, tally_scores
from ligretto.server.records.keeper import Change, Conflict, Keeper, KeptPlayer, NoRound, SeatRefusal, Sheet


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


def link(target: Sheet, seat: int, profile: str, *, unlink: bool = False) -> Change | SeatRefusal | None:
    """A link (or unlink) asked by ``profile``'s owner, applied if it is a change."""
    seats = target.unlink if unlink else target.link
    change = seats(seat, profile, by=profile, now=300.0)
    if isinstance(change, Change):
        target.apply(change)
    return change


def refusal(found: Change | SeatRefusal | None) -> str:
    assert isinstance(found, SeatRefusal), found
    return found.code


def test_a_seat_is_linked_by_its_own_profile_and_undo_passes_links_by() -> None:
    anns = (KeptPlayer("Ann", "red", "sun", "ann"), *PLAYERS[1:])  # Ann made it with her profile
    kept = Sheet("CODE", RuleSet().replace(match_end="rounds:1"), anns, 100.0)
    assert kept.creator == "ann" and Sheet("CODE", RuleSet(), PLAYERS, 100.0).creator is None
    made = link(kept, 1, "ben")
    assert isinstance(made, Change) and (made.kind, made.round, made.seat, made.profile) == ("link", 0, 1, "ben")
    assert [p.profile for p in kept.players] == ["ann", "ben", None] and kept.version == 1
    assert link(kept, 1, "ben") is None, "linked already: nothing to change"
    assert refusal(link(kept, 2, "ben")) == "already_seated"  # no two seats share a profile
    assert refusal(link(kept, 1, "cleo")) == "seat_taken"
    assert refusal(link(kept, 1, "cleo", unlink=True)) == "not_your_profile"
    assert refusal(link(kept, 3, "cleo")) == "no_seat"
    assert link(kept, 2, "cleo", unlink=True) is None, "nobody on it: nothing to unlink"
    assert kept.version == 1

    # Undo is of scores: it passes the link by; the creator may unlink anyone before the end.
    write(kept, 1, ONE, None, "a")
    undone = kept.undo("Bob", "u", 301.0)
    assert undone is not None and undone.undoes == 2
    kept.apply(undone)
    assert kept.undo("Bob", "u2", 302.0) is None and kept.players[1].profile == "ben"
    assert isinstance(link(kept, 1, "ann", unlink=True), Change) and kept.players[1].profile is None
    assert isinstance(link(kept, 1, "ben"), Change)
    write(kept, 1, ONE, None, "b")
    assert kept.standing().over
    assert refusal(link(kept, 1, "ann", unlink=True)) == "not_your_profile", "over: only its owner now"
    assert isinstance(link(kept, 2, "cleo"), Change), "a claim after the end"
    assert isinstance(link(kept, 2, "cleo", unlink=True), Change)
    assert [c.kind for c in kept.changes] == ["link", "entry", "undo", "unlink", "link", "entry", "link", "unlink"]

    # The sheet read back from its changes: the players as the links left them.
    again = Sheet("CODE", kept.rules, anns, 100.0)
    again.rebuild(kept.changes)
    assert again.players == kept.players and again.players[1].profile == "ben"
    kept.rebuild(kept.changes[:1])
    assert [p.profile for p in kept.players] == ["ann", "ben", None] and kept.made == anns


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


def test_a_watcher_is_told_each_version_once_and_never_an_older_one() -> None:
    keeper = Keeper()
    watcher = keeper.watch("CODE")
    keeper.tell("CODE", 2, b"two")
    keeper.tell("CODE", 1, b"one")  # published earlier by another process, arrived later
    assert watcher.take() == b"two" and not watcher.ready.is_set()
    keeper.tell("CODE", 2, b"two again")
    assert watcher.take() is None and not watcher.ready.is_set()
    keeper.tell("CODE", 3, b"three")
    assert watcher.ready.is_set() and watcher.take() == b"three"


def test_a_change_is_decided_on_the_sheet_as_it_is_and_a_refusal_changes_nothing() -> None:
    keeper = Keeper(clock=lambda: 5.0)
    kept = keeper.create(RuleSet(), PLAYERS)
    done = keeper.change(kept.code, lambda now: now.entry(1, ONE, None, by="A", client_id="a", now=5.0))
    assert done is not None and done[0] is kept and isinstance(done[1], Change)
    assert kept.rounds == [ONE] and kept.version == 1
    stale = keeper.change(kept.code, lambda now: now.entry(1, TWO, None, by="B", client_id="b", now=6.0))
    assert stale is not None and stale[1] == Conflict(ONE, 1)
    assert kept.rounds == [ONE] and kept.ids == {"a"}
    assert keeper.change("nope", lambda now: now.undo("A", "u", 7.0)) is None


class LostFile(BrokenFile):
    """A store whose transaction fails after the change was applied to the kept sheet."""

    def update(self, code: str, decide: Any, kept: Sheet | None = None) -> Any:
        assert kept is not None
        change = decide(kept)
        kept.apply(change)
        raise sqlite3.OperationalError("disk I/O error")


def test_a_kept_sheet_whose_change_could_not_be_written_is_dropped() -> None:
    keeper = Keeper(LostFile(), clock=lambda: 5.0)
    kept = keeper.create(RuleSet(), PLAYERS)
    with pytest.raises(sqlite3.OperationalError):
        keeper.change(kept.code, lambda now: now.entry(1, ONE, None, by="A", client_id="a", now=5.0))
    assert kept.code not in keeper.sheets, "read again from the store when next asked"
