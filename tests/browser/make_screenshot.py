"""Take the README's screenshots (docs/screenshot-desktop.png, docs/screenshot-phone.png)
from a real game.

    python tests/browser/make_screenshot.py [FOLDER]

Starts ``ligretto serve`` on a free port and opens Debian's Chromium twice: Ada at a
1280x800 desktop hosts a table with two bots, Bo joins it by the invite link on a
390x844 touch phone; both play a few seconds with the keyboard policy of the tests, and
each screen is saved as a small palette PNG.  The emote bar needs a colour emoji font
(Debian's ``fonts-noto-color-emoji``; ``FONTCONFIG_FILE`` may point Chromium at one that is
not installed): without one its buttons show empty boxes.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: wire.py, realserver.py

from browserkit import LAUNCH_ARGS, ROOT, Stuck, ensure_chromium, host_table, press, read_board, start_match
from PIL import Image
from playwright.sync_api import Page, sync_playwright

from realserver import ServerProcess

PLAY_S = 9.0
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def play(pages: dict[str, Page], seconds: float) -> None:
    """Both people play by the tests' policy (one key each in turn) for a while."""
    policies = {name: Stuck(vote=False) for name in pages}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for name, page in pages.items():
            state = read_board(page)
            if state is None or state["ended"]:
                return
            key = policies[name].choose(state)
            if key is not None:
                press(page, key)


def save(raw: Path, output: Path) -> None:
    image = Image.open(raw).convert("RGB").quantize(colors=192, method=Image.Quantize.MEDIANCUT)
    image.save(output, optimize=True)
    print(f"{output}: {output.stat().st_size // 1024} KiB")


def main(folder_out: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = ServerProcess.in_folder(Path(folder))
        server.start()
        try:
            with sync_playwright() as driver:
                browser = driver.chromium.launch(executable_path=ensure_chromium(), headless=True, args=LAUNCH_ARGS)
                desktop = browser.new_page(viewport=SIZES["desktop"], locale="en-GB")
                desktop.goto(server.url + "/")
                desktop.wait_for_selector("body[data-ready]")
                code = host_table(desktop, "Ada", seats=4, rounds=3, bots=("smart:casual", "greedy:casual"))
                phone = browser.new_context(viewport=SIZES["phone"], has_touch=True, is_mobile=True, locale="en-GB")
                bo = phone.new_page()
                bo.goto(f"{server.url}/#/t/{code}")
                bo.fill("#prompt-name", "Bo")
                bo.keyboard.press("Enter")
                desktop.wait_for_selector("#seats .seat-name:text('Bo')")
                start_match(desktop, bo)
                pages = {"desktop": desktop, "phone": bo}
                play(pages, PLAY_S)
                for name, page in pages.items():
                    page.wait_for_timeout(400)  # let the last flights land
                    raw = Path(folder) / f"{name}.png"
                    page.screenshot(path=str(raw))
                    save(raw, folder_out / f"screenshot-{name}.png")
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs")
