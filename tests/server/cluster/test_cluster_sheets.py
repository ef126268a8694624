"""The score keeper's sheets served by three REAL ``ligretto serve --redis`` processes as
by one (docs/deploy.md, "The score keeper's sheets"): a sheet made through one process,
its entries through another appear on the live streams of the others, every process
answers the same sheet; two corrections of one round on one version through two
processes at once: one accepted, the other a 409 with both entries; a change id retried
through other processes applies once; an undo through a process that did not make the
change; bad input through any process changes nothing, on any process, on any stream;
two profiles claiming one seat through two processes at once: one links it, the other is
told it is taken, and every stream sees the link."""

from __future__ import annotations

import threading
from typing import Any

from keeperclient import SheetStream, call, entry, new_sheet, put
from servicekit import Cluster

SEEN_S = 5.0
"""A generous bound for a change to reach a stream of another process (docs/benchmarks.md:
a few milliseconds)."""


def _everywhere(processes: list[Any], code: str) -> dict[str, Any]:
    """The sheet as every process answers it: the same body from each."""
    bodies = [call(p, "GET", f"/api/sheets/{code}") for p in processes]
    assert all(status == 200 for status, _ in bodies), bodies
    first = bodies[0][1]
    assert all(body == first for _, body in bodies), "every process answers the same sheet"
    sheet: dict[str, Any] = first
    return sheet


Call = tuple[Any, str, str, dict[str, Any] | None, str | None]
"""A process, a method, a path, a body and a profile's secret."""


def _at_once(calls: list[Call]) -> list[tuple[int, Any]]:
    """The calls sent at the same moment, each from a thread of its own; their answers."""
    answers: list[tuple[int, Any]] = [(0, None)] * len(calls)
    start = threading.Barrier(len(calls))

    def send(index: int) -> None:
        process, method, path, body, secret = calls[index]
        start.wait()
        answers[index] = call(process, method, path, body, secret=secret)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return answers


def _round_path(code: str, n: int) -> str:
    return f"/api/sheets/{code}/rounds/{n}"


def test_three_processes_keep_one_sheet(cluster: Cluster) -> None:
    a, b, c = processes = cluster.start(3)
    code = new_sheet(a, options={"match_end": "rounds:20"})["code"]
    streams = [SheetStream(a, code), SheetStream(c, code), SheetStream(b, code)]
    seen: list[list[int]] = [[] for _ in streams]

    def all_see(version: int) -> dict[str, Any]:
        """Every stream has the sheet at ``version`` (never an older one after a newer)."""
        last: dict[str, Any] = {}
        for index, stream in enumerate(streams):
            while not seen[index] or seen[index][-1] < version:
                _, last = stream.next(SEEN_S)
                seen[index].append(last["version"])
            assert seen[index][-1] == version, f"stream {index} went past {version}: {seen[index]}"
        return last

    all_see(0)  # the sheet as it is, at once

    # 1. An entry through B: on the streams of A and C (and B), the same sheet everywhere.
    first = entry([10, 6, 3], [0, 4, 7], 0)
    status, body = put(b, code, 1, first, base=None, client_id="b-1", by="Bob")
    assert status == 200 and body["version"] == 1, body
    assert all_see(1) == body
    assert _everywhere(processes, code) == body

    # 2. Two corrections of round 1 on version 1 through A and C at once: one is taken,
    # the other is a 409 with both entries; then two new rounds 2 through B and C at once.
    for n, base, version in ((1, 1, 2), (2, None, 3)):
        mine, theirs = entry([n, 5, 3], [0, 4, 7], 0), entry([n + 1, 5, 3], [0, 2, 7], 0)
        answers = _at_once(
            [
                (
                    a if n == 1 else b,
                    "PUT",
                    _round_path(code, n),
                    {"entry": mine, "base": base, "by": "Ann", "id": f"x{n}"},
                    None,
                ),
                (c, "PUT", _round_path(code, n), {"entry": theirs, "base": base, "by": "Cleo", "id": f"y{n}"}, None),
            ]
        )
        assert sorted(status for status, _ in answers) == [200, 409], answers
        (_, accepted), (_, refused) = sorted(answers, key=lambda answer: answer[0])
        winner, loser = (mine, theirs) if answers[0][0] == 200 else (theirs, mine)
        assert accepted["version"] == version and accepted["rounds"][n - 1]["entry"] == winner
        assert (refused["theirs"], refused["yours"], refused["version"]) == (winner, loser, version), refused
        assert all_see(version) == accepted
        assert _everywhere(processes, code) == accepted

    # 3. A change id retried through the two other processes applies once.
    third = entry([8, 8, 8], [1, 1, 1], None)
    made = put(a, code, 3, third, base=None, client_id="a-3")
    assert made[0] == 200 and made[1]["version"] == 4, made
    for process in (b, c):
        assert put(process, code, 3, third, base=None, client_id="a-3") == made
    assert all_see(4) == made[1]
    assert _everywhere(processes, code) == made[1]

    # 4. The change made through A undone through C (retried through B: once).
    status, undone = call(c, "POST", f"/api/sheets/{code}/undo", {"by": "Cleo", "id": "c-undo", "change": 4})
    assert status == 200 and undone["version"] == 5 and len(undone["rounds"]) == 2, undone
    assert undone["changes"][-1]["kind"] == "undo" and undone["changes"][-1]["undoes"] == 4
    assert call(b, "POST", f"/api/sheets/{code}/undo", {"by": "Bob", "id": "c-undo"}) == (200, undone)
    assert all_see(5) == undone

    # 5. Bad input through every process changes nothing anywhere.
    for process in processes:
        status, bad = put(process, code, 1, entry([10, 6, 3], [11, 4, 7], 0), base=2, client_id="bad-1")
        assert (status, bad["error"]) == (400, "bad_entry"), bad
        status, stale = put(process, code, 1, entry([1, 1, 1], [0, 1, 1], 0), base=1, client_id="bad-2")
        assert status == 409 and stale["version"] == 2, stale
        status, far = put(process, code, 9, first, base=None, client_id="bad-3")
        assert (status, far["error"]) == (404, "no_round"), far
        status, late = call(process, "POST", f"/api/sheets/{code}/undo", {"by": "Bob", "id": "bad-4", "change": 4})
        assert (status, late["error"]) == (409, "stale_undo"), late
        status, broken = call(process, "PUT", _round_path(code, 3), raw=b'{"entry": ')
        assert status == 400, broken
        assert _everywhere(processes, code) == undone
    # Nothing was told meanwhile: the next sheet every stream gets is the next change's.
    again = put(b, code, 3, third, base=None, client_id="b-3")
    assert again[0] == 200 and again[1]["version"] == 6, again
    assert all_see(6) == again[1]
    assert all(versions == sorted(set(versions)) for versions in seen), seen
    assert [versions[-2:] for versions in seen] == [[5, 6]] * 3

    # 6. Two profiles claim seat 1 through A and C at once: one links it, the other is told
    # it is taken (decided on the stored sheet); every stream and process has the link.
    dana, eli = (call(b, "POST", "/api/profiles", {"name": name, "symbol": "star"})[1] for name in ("Dana", "Eli"))
    seat = f"/api/sheets/{code}/players/1/profile"
    answers = _at_once([(a, "PUT", seat, None, dana["secret"]), (c, "PUT", seat, None, eli["secret"])])
    assert sorted(status for status, _ in answers) == [200, 409], answers
    (_, linked), (_, taken) = sorted(answers, key=lambda answer: answer[0])
    assert taken["error"] == "seat_taken" and linked["version"] == 7
    assert linked["players"][1]["profile"] in (dana["id"], eli["id"])
    assert all_see(7) == linked
    assert _everywhere(processes, code) == linked
