"""The history page of a profile with 1,000 matches (issue 15, "Measured"; docs/benchmarks.md).

One real match of four players and five rounds is played in process into a fresh SQLite
file (bots on a virtual clock, the profile's seat played by its stand-in), then filed
999 times more under other table codes (its rows in ``matches`` and ``match_players``
copied), so the profile has 1,000 matches with real score sheets.  A real ``ligretto
serve`` on that file answers ``GET /api/profiles/{id}/matches`` (page 1 of 50); each
request is timed from the client on the same machine, so the figures include the HTTP
round trip on 127.0.0.1 and bound the server's time from above.

    python tests/server/bench_history.py [--repeats 30]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: realserver.py, storedrounds.py

from ligretto.engine.rules import RuleSet
from realserver import ServerProcess, running
from storedrounds import Person, StoredRounds

MATCHES = 1000
ROUNDS = 5


def one_match(path: Path) -> tuple[str, str]:
    """Play one match into ``path``; the profile's id and secret."""
    rules = RuleSet().replace(match_end=f"rounds:{ROUNDS}")
    with StoredRounds(path) as stored:
        profile, secret = stored.profile("Ann", "sun")
        table = stored.table(
            "BENCH",
            [Person("Ann", profile)],
            ["smart:skilled"] * 3,
            rules=rules,
            seed=7000,
            countdown_s=1.0,
            rated=True,
        )
        stored.play(table, ROUNDS)
    return profile, secret


def copy_matches(path: Path) -> None:
    """File the one match 999 times more, each under its own table code and start time
    (with its rounds, so the owner's page links each round's replay)."""
    db = sqlite3.connect(path)
    with db:
        for n in range(1, MATCHES):
            db.execute(
                "INSERT INTO matches (code, match, rules, preset, size, rated, started, ended, sheet, places,"
                " replays, kind) SELECT code || ?, match, rules, preset, size, rated, started - ?, ended - ?,"
                " sheet, places, replays, kind FROM matches WHERE code = 'BENCH'",
                (f"-{n}", n * 600.0, n * 600.0),
            )
            db.execute(
                "INSERT INTO match_players (code, match, seat, name, profile, bot, token)"
                " SELECT code || ?, match, seat, name, profile, bot, token FROM match_players WHERE code = 'BENCH'",
                (f"-{n}",),
            )
            db.execute(
                "INSERT INTO rounds (code, match, number, seed, started, share)"
                " SELECT code || ?, match, number, seed, started, share || ? FROM rounds WHERE code = 'BENCH'",
                (f"-{n}", f"-{n}"),
            )
    (count,) = db.execute("SELECT COUNT(*) FROM matches").fetchone()
    db.close()
    assert count == MATCHES, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "history.db"
        profile, secret = one_match(path)
        copy_matches(path)
        with running(ServerProcess(path, Path(folder) / "server.log")) as server:
            url = f"{server.url}/api/profiles/{profile}/matches"
            for who, headers in (("anyone", {}), ("its owner", {"Authorization": f"Bearer {secret}"})):
                times, size, body = [], 0, {}
                for _ in range(args.repeats + 1):
                    start = time.perf_counter()
                    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as response:
                        raw = response.read()
                    times.append((time.perf_counter() - start) * 1000)
                    size, body = len(raw), json.loads(raw)
                times = times[1:]  # the first request warms the server up
                assert body["total"] == MATCHES and len(body["matches"]) == 20, body.get("total")
                linked = sum(len(match["replays"] or ()) for match in body["matches"])
                assert linked == (20 * ROUNDS if who == "its owner" else 0), linked
                print(
                    f"page 1 of {body['total']:,} matches ({body['pages']} pages), as {who}:"
                    f" median {statistics.median(times):.1f} ms, max {max(times):.1f} ms, {size:,} bytes,"
                    f" {linked} replay links, {args.repeats} requests"
                )


if __name__ == "__main__":
    main()
