"""The code blocks of docs/simulator.md that the research tests run as they are."""

from __future__ import annotations

from pathlib import Path

SIMULATOR_DOC = Path(__file__).resolve().parents[2] / "docs" / "simulator.md"


def doc_block(heading: str) -> str:
    """The first Python block of docs/simulator.md after the line starting ``heading``."""
    doc = SIMULATOR_DOC.read_text(encoding="utf-8")
    return doc.split(f"\n{heading}", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
