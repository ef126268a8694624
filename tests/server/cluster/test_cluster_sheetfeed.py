"""The sheets' channel (``server/cluster/sheetfeed.py``): a change published with the
sheet at its version reaches the other processes' watchers, not the publisher's own
(told when it wrote), a message that is not one is ignored, and every watched sheet is
read again once a subscription is confirmed (after a lost channel)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

import msgspec

from ligretto.server.cluster.keys import SHEETS
from ligretto.server.cluster.sheetfeed import SheetFeed, SheetWord


class Publisher:
    def __init__(self) -> None:
        self.published: list[tuple[str, bytes]] = []

    async def publish(self, channel: str, data: bytes) -> None:
        self.published.append((channel, data))


class Watchers:
    """What a process's live streams were told."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, int, bytes]] = []
        self.resyncs = 0

    def hear(self, code: str, version: int, body: bytes) -> None:
        self.heard.append((code, version, body))

    def resync(self) -> None:
        self.resyncs += 1


def test_a_change_published_by_one_process_reaches_the_others_watchers(
    arun: Callable[[Coroutine[Any, Any, Any]], Any],
) -> None:
    redis = Publisher()
    mine, theirs = SheetFeed(redis, "a"), SheetFeed(None, "b")
    here, there = Watchers(), Watchers()
    mine.sheets, theirs.sheets = here, there
    body = b'{"code":"S","version":3,"rounds":[]}'
    arun(mine.say("S", 3, body))
    ((channel, data),) = redis.published
    assert channel == SHEETS
    assert msgspec.json.decode(data, type=SheetWord).version == 3
    theirs.hear(data)
    theirs.hear(data.decode())  # as a Redis client that decodes responses gives it
    assert there.heard == [("S", 3, body)] * 2
    mine.hear(data)
    assert here.heard == [], "its own watchers were told when it wrote"


def test_a_bad_message_is_ignored_and_a_subscription_reads_the_watched_sheets_again() -> None:
    feed = SheetFeed(None, "b")
    feed.hear(b"not json")  # no watchers yet: nothing to do, nothing raised
    watchers = Watchers()
    feed.sheets = watchers
    feed.hear(b'{"process": "a"}')
    assert watchers.heard == []
    feed.subscribed()
    assert watchers.resyncs == 1
