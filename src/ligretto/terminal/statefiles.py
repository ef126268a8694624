"""The terminal client's state directory and its small private JSON files (seat tokens,
profiles): ``$XDG_STATE_HOME/ligretto``, each file written whole and readable by its owner only."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def state_dir() -> Path:
    """Where the client keeps its state: ``$XDG_STATE_HOME/ligretto`` or ``~/.local/state/ligretto``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "ligretto"


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object kept in ``path`` (``{}``: no such file, or not an object)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_private(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` whole (a temporary file renamed over it), mode 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-")
    with os.fdopen(handle, "w") as out:
        json.dump(data, out, indent=1)
    os.chmod(name, 0o600)
    os.replace(name, path)
