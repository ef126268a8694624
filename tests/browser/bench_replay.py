"""Measure the replay viewer (docs/benchmarks.md, "Replays in the browser"): a stored
12-player round replayed to its last state in Debian's Chromium, and the viewer's
screenshots at 390x844 and 1280x800.

    python tests/browser/bench_replay.py [--repeats 20] [--shots FOLDER]

A 12-seat table of ``smart:skilled`` bots (one seat a person's, played by its stand-in)
plays one round in process on a virtual clock into a real SQLite file; ``ligretto serve``
on that file answers ``GET /api/replays/{token}`` (the round's share token).  Timed in the page, after the answer
arrived: building the viewer's model from the answer, applying every step and drawing the
last board (``ReplayScreen.start`` then ``goTo(last)``: what "to its last state" costs);
the fetch of the answer is reported apart.  Median and best of the repeats.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: realserver.py, storedrounds.py

from browserkit import LAUNCH_ARGS, ensure_chromium
from playwright.sync_api import sync_playwright

from ligretto.engine.rules import RuleSet
from realserver import COUNTDOWN_S, ServerProcess, running
from storedrounds import Person, StoredRounds

SEATS = 12
TIMED = """async ([repeats, token]) => {
  const started = performance.now();
  const answer = await (await fetch(`/api/replays/${token}`)).json();
  const fetched = performance.now() - started;
  const screen = window.ligrettoReplay;
  const times = [];
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    screen.start(answer);
    screen.render();
    screen.goTo(answer.steps.length);
    times.push(performance.now() - t0);
  }
  return {fetched, times, steps: answer.steps.length, bytes: JSON.stringify(answer).length};
}"""


def store_round(path: Path) -> str:
    """One 12-player round played in process into the file at ``path``; its share token."""
    rules = RuleSet().replace(match_end="rounds:1")
    with StoredRounds(path, start=time.time()) as stored:  # the store dates the deal by the wall clock
        table = stored.table(
            "BENCH", [Person("Ann")], ["smart:skilled"] * (SEATS - 1), rules=rules, seed=1200, countdown_s=COUNTDOWN_S
        )
        stored.play(table)
    assert table.replay_token is not None
    return table.replay_token


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--shots", type=Path, default=Path("/tmp"))
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    token = store_round(folder / "ligretto.db")
    with running(ServerProcess.in_folder(folder)) as server, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=ensure_chromium(), headless=True, args=LAUNCH_ARGS)
        results: dict[str, Any] = {}
        for name, size in {"phone": (390, 844), "desktop": (1280, 800)}.items():
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            page.goto(f"{server.url}/#/replay/{token}")
            page.wait_for_function("() => window.ligrettoReplay !== undefined")
            if name == "desktop":
                results = page.evaluate(TIMED, [options.repeats, token])
            page.evaluate("() => window.ligrettoReplay.goTo(Math.floor(window.ligrettoReplay.track.length / 2))")
            page.screenshot(path=str(options.shots / f"replay-{SEATS}-{name}-middle.png"))
            page.evaluate("() => window.ligrettoReplay.goTo(window.ligrettoReplay.track.length)")
            page.screenshot(path=str(options.shots / f"replay-{SEATS}-{name}-end.png"))
        browser.close()
    times = results.pop("times")
    results |= {"repeats": len(times), "median_ms": round(statistics.median(times), 1), "best_ms": round(min(times), 1)}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
