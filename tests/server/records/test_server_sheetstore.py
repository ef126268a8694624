"""The score keeper's sheets in the store's database, on an SQLite file and on PostgreSQL
(``store_db``): a sheet read back as it was (its creator, its seats' links), and its match
filed in the history once it is over, as played at a table and unrated (taken out again
by an undo; into a profile's history when it is linked after the end, out when unlinked)."""

from __future__ import annotations

from keepersheets import ONE, PLAYERS, THREE, TWO

from ligretto.engine.rules import RuleSet
from ligretto.server.records.history import MatchFilter, matches_of
from ligretto.server.records.keeper import Change, Conflict, Keeper, KeptPlayer
from ligretto.server.records.ratingstore import rating_of
from ligretto.server.records.store import Store
from pgserver import StoreDatabase


def test_a_sheet_is_read_back_from_its_database_as_it_was(store_db: StoreDatabase) -> None:
    store = Store(store_db.url)
    keeper = Keeper(store.sheets, clock=lambda: 50.0)
    made = (KeptPlayer("Ann", "red", "sun", "ann"), *PLAYERS[1:])  # Ann made it with her profile
    kept = keeper.create(RuleSet().replace(stack_penalty=3), made)
    for number, tally, base, client_id in ((1, ONE, None, "a"), (2, TWO, None, "b"), (1, THREE, 1, "c")):
        change = kept.entry(number, tally, base, by="Cleo", client_id=client_id, now=60.0)
        assert isinstance(change, Change)
        keeper.commit(kept, change)
    for seat, profile, kind in ((1, "bob", "link"), (2, "cleo", "link"), (1, "bob", "unlink")):
        linked = getattr(kept, kind)(seat, profile, by=profile, now=65.0)
        assert isinstance(linked, Change)
        keeper.commit(kept, linked)
    undo = kept.undo("Bob", "u", 70.0)
    assert undo is not None
    keeper.commit(kept, undo)
    store.close()

    again = Store(store_db.url)
    found = Keeper(again.sheets).get(kept.code)
    assert found is not None
    assert (found.rules, found.players, found.created) == (kept.rules, kept.players, kept.created)
    assert (found.made, found.creator) == (made, "ann")
    assert [p.profile for p in found.players] == ["ann", None, "cleo"]
    assert (found.rounds, found.versions, found.changes) == (kept.rounds, kept.versions, kept.changes)
    assert (found.ids - {c.id for c in found.changes if c.kind in ("link", "unlink")}, found.undone) == (
        {"a", "b", "c", "u"},
        {3},
    )
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

    # Bob links his profile after the end: the match is in his history at once, with
    # its first end; unlinked, it is out of his history again (and still in Ann's).
    bob, _ = store.profiles.create("Bob", "moon")
    for seats, mine in ((kept.link, [match.ended]), (kept.unlink, [])):
        change = seats(1, bob.id, by="Bob", now=90.0)
        assert isinstance(change, Change)
        keeper.commit(kept, change)
        assert [m.ended for m in matches_of(store.db, MatchFilter(bob.id))] == mine
    (match,) = matches_of(store.db, MatchFilter(ann.id))
    assert [(p.name, p.profile) for p in match.players] == [("Ann", ann.id), ("Bob", None), ("Cleo", None)]
    store.close()


def test_two_processes_on_one_database_decide_on_the_sheet_as_stored(store_db: StoreDatabase) -> None:
    """Two keepers on one database (two processes of a service): each reads the other's
    changes, and a change is decided on the stored sheet, never on a stale copy."""
    first, second = Store(store_db.url), Store(store_db.url)
    here, there = Keeper(first.sheets, clock=lambda: 50.0), Keeper(second.sheets, clock=lambda: 60.0)
    kept = here.create(RuleSet(), PLAYERS)
    assert there.get(kept.code) is not None  # kept in memory there from now on

    made = here.change(kept.code, lambda now: now.entry(1, ONE, None, by="Ann", client_id="a", now=51.0))
    assert made is not None and isinstance(made[1], Change)
    seen = there.get(kept.code)
    assert seen is not None and (seen.rounds, seen.versions) == ([ONE], [1]), "the copy there brought up to date"

    # A correction made here; there, on its copy of version 1, the same round on base 1: a conflict.
    here.change(kept.code, lambda now: now.entry(1, TWO, 1, by="Ann", client_id="b", now=52.0))
    late = there.change(kept.code, lambda now: now.entry(1, THREE, 1, by="Bob", client_id="c", now=61.0))
    assert late is not None and late[1] == Conflict(TWO, 2)
    # A change id made here, sent again there: seen there as made.
    retried = there.change(kept.code, lambda now: "retry" if "b" in now.ids else None)
    assert retried is not None and retried[1] == "retry"
    undone = there.change(kept.code, lambda now: now.undo("Bob", "u", 62.0))
    assert undone is not None and isinstance(undone[1], Change) and undone[1].undoes == 2

    third = Store(store_db.url)
    again = Keeper(third.sheets).get(kept.code)
    assert again is not None and again.changes == undone[0].changes and again.rounds == [ONE]
    mine = here.get(kept.code)
    assert mine is not None and mine.changes == again.changes
    for store in (first, second, third):
        store.close()
