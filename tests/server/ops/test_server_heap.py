"""The server's garbage-collector policy (``ligretto.server.ops.heap``): survivors of every
collection are frozen, young collections run on the clock, and a thaw after many
connections or tables went away frees the reference cycles that died while frozen.

These tests change the collector of the test process itself; each one puts it back.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from ligretto.server.ops import heap, metrics
from ligretto.server.ops.heap import Collector


class Node:
    """An object in a reference cycle with itself."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def collector() -> Iterator[Collector]:
    thresholds = gc.get_threshold()
    gc.collect()
    tested = Collector(thaw_after=3)
    tested.install()
    try:
        yield tested
    finally:
        tested.uninstall()
        gc.set_threshold(*thresholds)
        gc.collect()


def _pauses(generation: int) -> float:
    value = metrics.REGISTRY.get_sample_value("ligretto_gc_pause_seconds_count", {"generation": str(generation)})
    return value or 0.0


def test_install_sets_the_thresholds_and_uninstall_puts_them_back() -> None:
    before = gc.get_threshold()
    tested = Collector()
    tested.install()
    try:
        assert gc.get_threshold() == heap.THRESHOLDS and tested.installed
    finally:
        tested.uninstall()
    assert gc.get_threshold() == before and not tested.installed and gc.get_freeze_count() == 0


def test_the_survivors_of_a_collection_are_frozen_and_its_pause_is_counted(collector: Collector) -> None:
    collector.settle()
    frozen = gc.get_freeze_count()
    pauses = _pauses(0)
    survivors = [[i] for i in range(1000)]  # containers: the collector tracks them
    gc.collect(0)
    assert gc.get_freeze_count() >= frozen + len(survivors)
    assert len(gc.get_objects(0)) < 100, "the young generation is left empty"
    assert _pauses(0) == pauses + 1


def test_young_collections_come_with_the_clock(collector: Collector, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(heap.time, "monotonic", lambda: clock[0])
    collector.last_collection = clock[0]
    clock[0] += heap.YOUNG_EVERY_S - 1
    assert collector.tick() is None
    clock[0] += 1
    assert collector.tick() == 0
    assert collector.last_collection == clock[0]
    assert collector.tick() is None, "just collected"


def test_a_thaw_frees_the_cycles_that_died_frozen(collector: Collector) -> None:
    node = Node()
    alive = weakref.ref(node)
    collector.settle()  # the cycle is alive: frozen with the rest
    del node
    gc.collect()
    assert alive() is not None, "a frozen cycle is not collected"
    collector.release(2)
    assert collector.tick() is None or alive() is not None, "not yet: too few went away"
    collector.release()
    assert collector.tick() == 2 and collector.thaws == 1 and collector.released == 0
    assert alive() is None, "the thaw did not free the dead cycle"
    assert gc.get_freeze_count() > 0, "what survived the thaw's collection is frozen again"


def test_thaws_are_spaced_out_however_many_went_away(collector: Collector, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(heap.time, "monotonic", lambda: clock[0])
    collector.release(3)
    assert collector.tick() == 2 and collector.thaws == 1
    collector.release(30)  # a storm of closed connections right after
    clock[0] += collector.thaw_every_s - 1
    assert collector.tick() != 2 and collector.thaws == 1, "a second full collection too soon"
    assert collector.released == 30, "what went away meanwhile is still counted"
    clock[0] += 1
    assert collector.tick() == 2 and collector.thaws == 2 and collector.released == 0
