"""The installable score keeper (docs/clients.md "Score keeper"): the service worker keeps
exactly the app's own files (a module or language added later is kept too, or this test
says so), every one of them is served by the real server (the worker's install fails on
any missing one), and the web manifest starts at the score keeper with an icon that exists."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parents[2] / "src" / "ligretto" / "server" / "static"
WORKER = STATIC / "sw.js"


def kept_files() -> list[str]:
    source = WORKER.read_text(encoding="utf-8")
    listed = re.search(r"const APP_FILES = \[(.*?)\];", source, re.DOTALL)
    assert listed, "sw.js has no APP_FILES list"
    return re.findall(r'"([^"]+)"', listed.group(1))


def test_the_worker_keeps_every_file_of_the_app_and_nothing_else() -> None:
    files = {f"/{path.relative_to(STATIC).as_posix()}" for path in STATIC.rglob("*") if path.is_file()}
    files -= {"/sw.js"}  # the worker itself is the browser's to keep
    kept = kept_files()
    assert len(kept) == len(set(kept))
    assert set(kept) == files | {"/", "/api/presets"}, sorted(set(kept) ^ (files | {"/", "/api/presets"}))


def test_the_server_serves_the_worker_the_manifest_and_every_kept_file(server: Any) -> None:
    for path in ["/sw.js", *kept_files()]:
        with urllib.request.urlopen(server.url + path, timeout=10) as answer:
            assert answer.status == 200, path
            kind = answer.headers["Content-Type"]
            if path.endswith(".js"):
                assert "javascript" in kind, (path, kind)
            if path.endswith(".json") or path == "/api/presets":
                json.loads(answer.read())
    manifest = json.loads((STATIC / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["start_url"] == "/#/keep" and manifest["display"] == "standalone"
    assert manifest["icons"] and all((STATIC / icon["src"].lstrip("/")).is_file() for icon in manifest["icons"])
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert '<link rel="manifest" href="/manifest.json">' in page
