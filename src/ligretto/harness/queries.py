"""The stress harness's bad numbers in queries and addresses (issue 27, ``ligretto stress
--scenarios queries``): every number of :data:`BAD_NUMBERS` -- Unicode digits (``str.isdigit``
says yes to them), 4,301 digits (past Python's limit for ``int``), a sign, nothing,
spaces, a point, an exponent, hex, out of range, 19 digits -- in every numeric query
parameter of the HTTP API and as the round and the seat of a score sheet's addresses,
``rounds`` times over, from a few keep-alive connections at once.

Every answer must be the JSON error (``{"error": ..., "message": ...}``, short: a long
number is not echoed whole): 400 ``bad_query`` for a query, 404 ``no_round`` for a round,
``no_seat`` for a seat (``not_found`` for the empty one, another address), never a 500.  :func:`run_queries`
counts the answers otherwise (wrong answers), the answers by status, and the lines the
server's log gained (a refusal is not logged: at most :data:`LOG_LINES_AT_MOST`); the
harness counts the tracebacks in that log."""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from pathlib import Path
from urllib.parse import quote, urlsplit

from ligretto.harness.probes import alive, metrics, rss_of
from ligretto.harness.probes import http as fetch
from ligretto.harness.run import server_urls
from ligretto.harness.scenario import ScenarioReport

BAD_NUMBERS: tuple[str, ...] = ("²", "①", "٣", "１", "9" * 4301, "9" * 19, "-1", "1e3", "", " 3", "3 ", "+3", "3.0")
BAD_NUMBERS += ("0x3", "0", "1000001")
BAD_SEATS = tuple(bad for bad in BAD_NUMBERS if bad != "0")
"""The bad numbers as a seat (0 is a sheet's first seat)."""
WORKERS = 4
"""Keep-alive connections sending at once."""
LOG_LINES_AT_MOST = 10
"""Lines the server's log may gain while it refuses every request (none is expected)."""
ANSWER_BYTES_AT_MOST = 300
"""The longest refusal (its message names the parameter, not a whole long number)."""
PLAYERS = [
    {"name": name, "back": {"colour": "red", "symbol": symbol}} for name, symbol in (("Ann", "sun"), ("Bo", "moon"))
]
ENTRY = {"center": [1, 1], "stack": [0, 5], "ending": "stop", "stopped_by": 0}

Request = tuple[str, str, bytes | None, int, str]
"""Method, path, body, the status and the error code it must be answered with."""


def requests_of(profile: str, sheet: str) -> list[Request]:
    """One request per bad number and numeric place: the profile's matches and stats, the
    leaderboard, the sheet's round and seat (a seat's link: refused before its secret is
    asked for)."""
    queries = (
        f"/api/profiles/{profile}/matches?players=",
        f"/api/profiles/{profile}/matches?page=",
        f"/api/profiles/{profile}/stats?players=",
        "/api/leaderboard?players=",
        "/api/leaderboard?page=",
    )
    body = json.dumps({"entry": ENTRY, "base": None, "by": "Ann", "id": "stress"}).encode()
    made: list[Request] = []
    for bad in BAD_NUMBERS:
        made += [("GET", query + quote(bad), None, 400, "bad_query") for query in queries]
        made.append(("PUT", f"/api/sheets/{sheet}/rounds/{quote(bad)}", body, 404, "no_round" if bad else "not_found"))
    for bad in BAD_SEATS:
        seat = f"/api/sheets/{sheet}/players/{quote(bad)}/profile"
        made.append(("PUT", seat, None, 404, "no_seat" if bad else "not_found"))
    return made


def _answered_as_it_must(status: int, content_type: str, data: bytes, want: tuple[int, str]) -> bool:
    if (status, content_type) != (want[0], "application/json") or len(data) > ANSWER_BYTES_AT_MOST:
        return False
    try:
        body = json.loads(data)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("error") == want[1] and isinstance(body.get("message"), str)


def _send(host: str, port: int, requests: list[Request]) -> tuple[int, dict[str, int]]:
    """``requests`` on one keep-alive connection (a new one after a failure); the answers
    not as they must be, and the answers by status."""
    wrong, statuses = 0, dict[str, int]()
    connection = http.client.HTTPConnection(host, port, timeout=10)
    for method, path, body, status, code in requests:
        headers = {"Content-Type": "application/json"} if body else {}
        try:
            connection.request(method, path, body, headers)
            answer = connection.getresponse()
            data = answer.read()
        except (OSError, http.client.HTTPException):
            statuses["failed"] = statuses.get("failed", 0) + 1
            wrong += 1
            connection.close()
            connection = http.client.HTTPConnection(host, port, timeout=10)
            continue
        statuses[str(answer.status)] = statuses.get(str(answer.status), 0) + 1
        wrong += not _answered_as_it_must(answer.status, answer.getheader("Content-Type", ""), data, (status, code))
    connection.close()
    return wrong, statuses


def _lines(log: Path | None) -> int | None:
    return None if log is None else len(log.read_text(errors="replace").splitlines())


async def run_queries(
    url: str, rounds: int, *, log: Path | None = None, server_pid: int | None = None
) -> ScenarioReport:
    """Every bad number in every numeric place ``rounds`` times; the report (tried: the
    requests; ``log``: the server's log file, whose lines are counted)."""
    base, _ = server_urls(url)
    parts = urlsplit(base)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    profile = json.loads(await asyncio.to_thread(fetch, f"{base}/api/profiles", {"name": "Ann", "symbol": "sun"}))
    sheet = json.loads(await asyncio.to_thread(fetch, f"{base}/api/sheets", {"players": PLAYERS}))
    rss_before, lines_before, counted = rss_of(server_pid)[0] if server_pid else None, _lines(log), await metrics(base)
    every = requests_of(profile["id"], sheet["code"]) * rounds
    start = time.monotonic()
    sent = await asyncio.gather(*(asyncio.to_thread(_send, host, port, every[i::WORKERS]) for i in range(WORKERS)))
    seconds = time.monotonic() - start
    statuses: dict[str, int] = {}
    for _, answers in sent:
        for status, n in answers.items():
            statuses[status] = statuses.get(status, 0) + n
    lines_after, counted_after = _lines(log), await metrics(base)
    added = None if lines_before is None or lines_after is None else lines_after - lines_before
    refusals = {
        code: int(counted_after.get(key, 0) - counted.get(key, 0))
        for code in ("bad_query", "no_round", "no_seat", "not_found")
        if (key := f'ligretto_bad_requests_total{{code="{code}"}}')
    }
    return ScenarioReport(
        scenario="queries",
        what="requests with bad numbers",
        tried=len(every),
        seconds=round(seconds, 1),
        crashes=0 if await alive(base) else 1,
        # answered otherwise (a 500 among them), or the log flooded
        wrong_answers=sum(wrong for wrong, _ in sent) + (added is None or added > LOG_LINES_AT_MOST),
        rss_before=rss_before,
        rss_after=rss_of(server_pid)[0] if server_pid else None,
        details={
            "bad_numbers": len(BAD_NUMBERS),
            "bad_seats": len(BAD_SEATS),
            "answers_by_status": dict(sorted(statuses.items())),
            "refusals_counted_by_the_server": refusals,
            "requests_per_s": round(len(every) / seconds) if seconds else None,
            "log_lines_added": added,
            "log_lines_at_most": LOG_LINES_AT_MOST,
        },
    )
