"""The shared lobby (``server/cluster/lobbyfeed.py``): one order on every process, the
other processes' tables as last heard (a silent one dropped after a lease, a leaving one
at once), published only when they change or a renewal passed (an injected clock)."""

from __future__ import annotations

from typing import Any

import msgspec

from ligretto import protocol
from ligretto.server.cluster.keys import HEARD_S, LOBBY, RENEW_S
from ligretto.server.cluster.lobbyfeed import Entry, LobbyFeed, Word, joined, merged

RULES: dict[str, str | int | bool] = {"match_end": "rounds:5"}


def summary(code: str, phase: str = "lobby", taken: int = 0, seats: int = 2) -> protocol.TableSummary:
    return protocol.TableSummary(code, phase, seats, taken, None, RULES)  # type: ignore[arg-type]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Publisher:
    """What the feed needs of Redis to publish: the messages it was given."""

    def __init__(self) -> None:
        self.published: list[tuple[str, bytes]] = []

    async def publish(self, channel: str, data: bytes) -> None:
        self.published.append((channel, data))


def word(process: str, *entries: Entry, leaving: bool = False) -> bytes:
    return msgspec.json.encode(Word(process, list(entries), leaving))


def test_merged_lists_waiting_tables_first_newest_first_capped_with_the_total() -> None:
    old_waiting = Entry(1.0, summary("old"))
    new_waiting = Entry(5.0, summary("new"))
    full = Entry(9.0, summary("full", taken=2))
    playing = Entry(8.0, summary("playing", phase="playing", taken=2))
    listing = merged([old_waiting, full], [playing, new_waiting], cap=0)
    assert [t.code for t in listing.tables] == ["new", "old", "full", "playing"]
    assert listing.total == 4
    capped = merged([playing, new_waiting], [old_waiting, full], cap=2)
    assert [t.code for t in capped.tables] == ["new", "old"] and capped.total == 4, "the same order from any side"


def test_the_others_tables_as_last_heard_a_silent_process_dropped_after_heard_s() -> None:
    clock = Clock()
    feed = LobbyFeed(None, "me", clock)
    feed.hear(word("b", Entry(1.0, summary("b1"))))
    feed.hear(word("c", Entry(2.0, summary("c1")), Entry(3.0, summary("c2"))))
    feed.hear(word("me", Entry(4.0, summary("mine"))))  # its own word comes back: ignored
    assert sorted(e.summary.code for e in feed.others(set())) == ["b1", "c1", "c2"]
    assert sorted(e.summary.code for e in feed.others({"c2"})) == ["b1", "c1"], "a table taken over is its owner's"
    feed.hear(word("b"))  # b has no public table any more
    clock.now += HEARD_S / 2
    feed.hear(word("c", Entry(2.0, summary("c1"))))
    assert [e.summary.code for e in feed.others(set())] == ["c1"]
    clock.now += HEARD_S / 2 + 0.1
    feed.hear(word("d", Entry(5.0, summary("c1"))))  # d took c1 over: listed once, as d says
    assert [(e.summary.code, e.born) for e in feed.others(set())] == [("c1", 5.0)]
    clock.now += HEARD_S / 2  # c fell silent (killed)
    assert [e.summary.code for e in feed.others(set())] == ["c1"] and "c" not in feed.heard
    clock.now += HEARD_S / 2 + 0.1
    assert feed.others(set()) == []


def test_a_leaving_process_is_dropped_at_once_and_its_tables_taken() -> None:
    left: list[bool] = []
    feed = LobbyFeed(None, "me", Clock(), on_leaving=lambda: left.append(True))
    feed.hear(word("b", Entry(1.0, summary("b1"))))
    feed.hear(word("b", leaving=True))
    assert feed.others(set()) == [] and left == [True]


def test_a_message_that_is_not_a_word_changes_nothing() -> None:
    feed = LobbyFeed(None, "me", Clock())
    feed.hear(word("b", Entry(1.0, summary("b1"))))
    feed.hear(b"not json")
    feed.hear(b'{"process": 3}')
    assert [e.summary.code for e in feed.others(set())] == ["b1"]


def test_published_when_changed_or_a_renewal_passed(arun: Any) -> None:
    clock = Clock()
    publisher = Publisher()
    feed = LobbyFeed(publisher, "me", clock)
    one = [Entry(1.0, summary("t1"))]

    async def scenario() -> None:
        await feed.say(one)
        await feed.say(list(one))  # the same: not again
        clock.now += RENEW_S / 2
        await feed.say([Entry(1.0, summary("t1", taken=1))])  # changed: at once
        await feed.say([Entry(1.0, summary("t1", taken=1))])
        clock.now += RENEW_S  # unchanged, but a renewal passed: the others keep hearing it
        await feed.say([Entry(1.0, summary("t1", taken=1))])
        await feed.leave()

    arun(scenario())
    words = [msgspec.json.decode(data, type=Word) for _, data in publisher.published]
    assert {channel for channel, _ in publisher.published} == {LOBBY}
    assert [(w.tables[0].summary.taken if w.tables else None) for w in words] == [0, 1, 1, None]
    assert [w.leaving for w in words] == [False, False, False, True]


def test_every_process_s_tournaments_are_listed_once_at_their_latest_stage(arun: Any) -> None:
    """Each process publishes the tournaments its stage tables play; the lobby lists each
    once, at the latest stage any process has tables of, those tables added up (a
    take-over may have spread them), and forgets a silent process's."""
    clock = Clock()
    publisher = Publisher()
    feed = LobbyFeed(publisher, "me", clock)

    def cup(ident: str, stage: int, tables: int) -> protocol.LobbyTournament:
        return protocol.LobbyTournament(ident, f"Cup {ident}", stage, 3, tables)

    mine = [cup("a", 2, 2), cup("b", 1, 1)]
    feed.hear(msgspec.json.encode(Word("c", [], tournaments=[cup("a", 2, 1), cup("b", 2, 1), cup("d", 1, 4)])))
    feed.hear(msgspec.json.encode(Word("e", [], tournaments=[cup("a", 1, 3)])))  # a's stage over there
    assert joined([mine, *feed.others_tournaments()]) == [cup("a", 2, 3), cup("b", 2, 1), cup("d", 1, 4)]
    clock.now += HEARD_S + 0.1
    feed.hear(msgspec.json.encode(Word("e", [])))
    assert joined([mine, *feed.others_tournaments()]) == mine  # c fell silent, e plays none now

    async def scenario() -> None:
        await feed.say([], None, mine)
        await feed.say([], None, list(mine))  # the same: not again
        await feed.say([], None, [cup("a", 3, 1)])

    arun(scenario())
    words = [msgspec.json.decode(data, type=Word) for _, data in publisher.published]
    assert [w.tournaments for w in words] == [mine, [cup("a", 3, 1)]]
