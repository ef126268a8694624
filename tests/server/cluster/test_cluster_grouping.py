"""The queue's pure grouping (``server/cluster/grouping.py``): every ticket in one group,
no group over its seats, members within reach of their group's oldest ticket, bands that
widen with the wait, and a group ready when full or when its countdown is over."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ligretto.server.cluster.grouping import BAND, WIDEN_PER_S, Waiting, groups, reach

tickets = st.lists(
    st.builds(
        Waiting,
        id=st.uuids().map(str),
        people=st.integers(1, 3),
        rating=st.floats(-30, 80),
        since=st.floats(0, 100),
    ),
    max_size=30,
    unique_by=lambda t: t.id,
)


@given(tickets, st.integers(2, 6), st.floats(0, 200))
def test_every_ticket_is_in_one_group_within_seats_and_reach(waiting: list[Waiting], seats: int, now: float) -> None:
    found = groups(waiting, seats, now, countdown_s=30.0)
    placed = [t.id for g in found for t in g.tickets]
    assert sorted(placed) == sorted(t.id for t in waiting)
    for group in found:
        anchor = group.tickets[0]
        assert group.people <= seats or len(group.tickets) == 1  # a party too big waits alone (refused upstream)
        assert group.starts_at == anchor.since + 30.0
        assert group.ready(now) == (group.people >= seats or now >= group.starts_at)
        for other in group.tickets[1:]:
            assert (other.since, other.id) >= (anchor.since, anchor.id)  # the oldest anchors
            assert abs(other.rating - anchor.rating) <= max(reach(anchor, now), reach(other, now))


def test_bands_widen_with_the_wait() -> None:
    strong = Waiting("strong", 1, 60.0, since=0.0)
    new = Waiting("new", 1, 0.0, since=0.0)
    assert [len(g.tickets) for g in groups([strong, new], 2, now=0.0)] == [1, 1]
    apart_s = (60.0 - BAND) / WIDEN_PER_S
    assert [len(g.tickets) for g in groups([strong, new], 2, now=apart_s - 1)] == [1, 1]
    together = groups([strong, new], 2, now=apart_s + 1)
    assert len(together) == 1 and together[0].full


def test_a_party_is_seated_whole_or_waits() -> None:
    solo = Waiting("solo", 1, 0.0, since=0.0)
    party = Waiting("party", 3, 0.0, since=1.0)
    pair = Waiting("pair", 2, 0.0, since=2.0)
    found = groups([solo, party, pair], 4, now=3.0)
    assert [[t.id for t in g.tickets] for g in found] == [["solo", "party"], ["pair"]]
    assert found[0].full and not found[1].ready(3.0) and found[1].ready(32.0)
