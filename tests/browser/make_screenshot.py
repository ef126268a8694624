"""Take the README's screenshot (docs/screenshot.png) from a real game.

    python tests/browser/make_screenshot.py [OUTPUT.png]

Starts ``ligretto serve`` on a free port, opens Debian's Chromium at 1280x800, creates a
table with three bots, plays a few seconds with the keyboard policy of the tests, and
saves the screen as a small palette PNG.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from browserkit import LAUNCH_ARGS, ROOT, Stuck, ensure_chromium, host_table, press, read_board, start_match
from PIL import Image
from playwright.sync_api import sync_playwright

from realserver import ServerProcess

PLAY_S = 9.0


def main(output: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = ServerProcess.in_folder(Path(folder))
        server.start()
        try:
            with sync_playwright() as driver:
                browser = driver.chromium.launch(executable_path=ensure_chromium(), headless=True, args=LAUNCH_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 760}, locale="en-GB")
                page.goto(server.url + "/")
                page.wait_for_selector("body[data-ready]")
                host_table(page, "Ada", rounds=3, bots=("smart:casual", "greedy:casual", "smart:beginner"))
                start_match(page)
                stuck = Stuck(vote=False)
                deadline = time.monotonic() + PLAY_S
                while time.monotonic() < deadline:
                    state = read_board(page)
                    if state is None or state["ended"]:
                        break
                    key = stuck.choose(state)
                    if key is not None:
                        press(page, key)
                page.wait_for_timeout(400)  # let the last flights land
                raw = Path(folder) / "raw.png"
                page.screenshot(path=str(raw))
                browser.close()
        finally:
            server.stop()
        image = Image.open(raw).convert("RGB").quantize(colors=96, method=Image.Quantize.MEDIANCUT)
        image.save(output, optimize=True)
    print(f"{output}: {output.stat().st_size // 1024} KiB")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshot.png")
