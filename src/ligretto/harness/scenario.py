"""What every scenario of the stress harness (``ligretto stress``) reports, in one shape.

Each scenario (malformed messages, idle connections, table floods, floods at live tables,
races, ``kill -9``, a lobby flood, idle lobby sockets, bad numbers in queries) returns a
:class:`ScenarioReport`: what it tried, and the figures the issue asks of each --
crashes, state changes by refused actions, cards lost, acknowledged actions lost, hidden
cards sent, figures past their bound, the server's memory before and after, the other
tables' p99 ack meanwhile.  A figure a scenario cannot have is ``None`` ("-" in the
table), never a zero it did not measure.  The frames a scenario's clients received, kept
in :attr:`ScenarioReport.frames`, are scanned for hidden cards against the engine's replay
of the rounds in the server's database (``testkit/scans.py``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ligretto.testkit.scans import Frame

MUST_BE_ZERO = ("crashes", "wrong_answers", "state_changes", "cards_lost", "acks_lost", "hidden_cards", "over_bound")
"""The figures whose only right answer is zero."""


@dataclass(slots=True)
class ScenarioReport:
    """One scenario's figures (``None``: not measured by this scenario)."""

    scenario: str
    what: str
    """What was tried, counted by :attr:`tried`: "malformed messages", "kill -9", ..."""
    tried: int
    seconds: float
    crashes: int = 0
    """Times the server stopped answering (or exited) when nothing killed it."""
    wrong_answers: int | None = None
    """What the server did not answer as it must: a malformed message not refused exactly
    once, invalid UTF-8 not closed with 1007, an idle connection left open past its
    deadline, a table made over the quota."""
    state_changes: int | None = None
    """Rounds a refused message changed (a spectator's view before and after)."""
    cards_lost: int | None = None
    """Cards missing from (or extra in) a round's views: every seat's 40 must be somewhere."""
    acks_lost: int | None = None
    """Actions the server acknowledged as applied that were not in the round afterwards."""
    hidden_cards: int | None = None
    """Cards face down for their recipient at the time that a frame named."""
    frames_scanned: int | None = None
    rss_before: int | None = None
    rss_after: int | None = None
    other_p99_ms: float | None = None
    """The p99 ack of other tables' ordinary players while the scenario ran (in its
    :attr:`window`, if it has one)."""
    over_bound: int | None = None
    """Figures past the bound the scenario holds them to: the tables listed more often than
    once a tick for every lobby socket; at full scale the other tables' p99 ack or the
    server's CPU raised past the scale's bound (``harness/stressrun.py``)."""
    window: tuple[float, float] | None = None
    """The part of the run that is the scenario's "during" (``time.perf_counter()``, start
    and end: lobby sockets held once all are open, say); ``None``: the whole run."""
    details: dict[str, Any] = field(default_factory=dict)
    frames: list[Frame] = field(default_factory=list, repr=False)

    @property
    def failures(self) -> list[str]:
        """The must-be-zero figures that are not zero."""
        return [name for name in MUST_BE_ZERO if getattr(self, name)]

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON data (without the frames, which are only scanned)."""
        data = asdict(self)
        del data["frames"]
        data["failures"] = self.failures
        return data


def _mb(value: int | None) -> str:
    return "-" if value is None else f"{value / 1e6:.1f}"


def _figure(value: int | float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f}" if isinstance(value, float) else f"{value:,}"


def markdown_table(reports: list[ScenarioReport]) -> str:
    """The reports as the table of docs/reliability.md, one scenario a row."""
    lines = [
        "| scenario | tried | crashes | wrong answers | state changes | cards lost | acks lost "
        "| hidden cards (frames) | server RSS before / after (MB) | other tables' p99 ack (ms) | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in reports:
        hidden = _figure(r.hidden_cards) + ("" if r.frames_scanned is None else f" ({r.frames_scanned:,})")
        lines.append(
            f"| {r.scenario} | {r.tried:,} {r.what} | {r.crashes} | {_figure(r.wrong_answers)} "
            f"| {_figure(r.state_changes)} "
            f"| {_figure(r.cards_lost)} | {_figure(r.acks_lost)} | {hidden} "
            f"| {_mb(r.rss_before)} / {_mb(r.rss_after)} | {_figure(r.other_p99_ms)} | {r.seconds:,.1f} |"
        )
    return "\n".join(lines) + "\n"
