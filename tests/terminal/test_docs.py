"""The key list in docs/clients.md is the terminal's, and the browser reads the same keys."""

from __future__ import annotations

import re
from pathlib import Path

from ligretto.terminal.keys import KEYS

ROOT = Path(__file__).resolve().parents[2]


def test_docs_list_every_binding_of_the_terminal() -> None:
    text = (ROOT / "docs" / "clients.md").read_text()
    section = text.split("## Key bindings (both clients)", 1)[1].split("\n## ", 1)[0]
    shared, terminal_only = section.split("The terminal client also has:")
    for key in KEYS:
        assert f"| {key.keys} | {key.does} |" in (shared if key.both else terminal_only), key


def test_the_browser_uses_the_same_keys() -> None:
    keys_js = (ROOT / "src" / "ligretto" / "server" / "static" / "js" / "keys.js").read_text()
    expected = {
        "stack": "s",
        "discard": "d",
        "turn": " ",
        "vote": "v",
        "placeStack": "S",
        "placeDiscard": "D",
        "ready": "Enter",
        "cancel": "Escape",
        "help": "?",
    }
    for name, key in expected.items():
        assert re.search(rf'\b{name}: "{re.escape(key)}"', keys_js), (name, key)
    assert 'row: ["1", "2", "3", "4", "5"]' in keys_js
