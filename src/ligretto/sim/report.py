"""Showing and writing a simulation: progress bar, tables, JSON, CSV and a plot.

The schemas of the JSON and CSV files are documented in docs/simulator.md;
``tests/sim/test_report.py`` holds them to it.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from ligretto.engine.rules import written
from ligretto.sim.runner import ProgressCallback, SimConfig, SimReport, run
from ligretto.sim.stats import MeanCI, Rate, SeatSummary, Spread, Summary, summarise

CSV_COLUMNS = (
    "round",
    "seed",
    "rotation",
    "seat",
    "bot",
    "score",
    "center",
    "stack_left",
    "ended_by",
    "actions",
    "refusals",
    "duration_s",
    "races_won",
    "races_lost",
)
"""One CSV row per round per seat; matches mode adds a ``match`` column at the end."""


# --- while running ----------------------------------------------------------------------


@contextmanager
def progress_bar(what: str, total: int | None = None, console: Console | None = None) -> Iterator[ProgressCallback]:
    """A transient progress bar on stderr; yields the ``on_progress`` callback for :func:`run`.

    The bar is redrawn only from the callback (no refresh thread), so worker processes
    are never forked while a thread holds the console.
    """
    console = console or Console(stderr=True)
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True, auto_refresh=False) as progress:
        task = progress.add_task(what, total=total)

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total, refresh=True)

        yield on_progress


# --- tables ---------------------------------------------------------------------------


def _mean(value: MeanCI, digits: int = 2) -> str:
    if value.half_width is None:
        return f"{value.mean:.{digits}f}"
    return f"{value.mean:.{digits}f} ± {value.half_width:.{digits}f}"


def _rate(value: Rate) -> str:
    return f"{value.rate:.1%} [{value.low:.1%}, {value.high:.1%}]"


def _spread_row(name: str, value: Spread, digits: int) -> list[str]:
    return [name, *(f"{x:.{digits}f}" for x in (value.mean, value.p50, value.p90, value.min, value.max))]


def bot_table(summary: Summary) -> Table:
    """One row per bot: score, win rate, cards to the center and left in the stack."""
    percent = round(summary.confidence * 100)
    table = Table(title="Per bot", title_justify="left")
    table.add_column("bot", no_wrap=True)
    table.add_column("rounds", justify="right")
    table.add_column(f"score ± {percent} % CI", justify="right")
    table.add_column("round wins [Wilson]", justify="right")
    table.add_column("center", justify="right")
    table.add_column("stack left", justify="right")
    matches = summary.bots[0].match_win_rate is not None
    if matches:
        table.add_column("match wins [Wilson]", justify="right")
    for bot in summary.bots:
        row = [
            bot.label,
            f"{bot.rounds:,}",
            _mean(bot.score),
            _rate(bot.win_rate),
            _mean(bot.center, 1),
            _mean(bot.stack_left, 1),
        ]
        if bot.match_win_rate is not None:
            row.append(_rate(bot.match_win_rate))
        table.add_row(*row)
    return table


def seat_table(seats: list[SeatSummary], confidence: float) -> Table:
    """One row per seat: its delay, races for a pile won and lost, the share won, the score."""
    percent = round(confidence * 100)
    table = Table(title="Per seat: races for a pile", title_justify="left")
    table.add_column("seat", justify="right")
    table.add_column("delay ms", justify="right")
    table.add_column("races won", justify="right")
    table.add_column("lost", justify="right")
    table.add_column(f"share won [{percent} % CI, rounds]", justify="right")
    table.add_column(f"score ± {percent} % CI", justify="right")
    for seat in seats:
        table.add_row(
            str(seat.seat),
            f"{seat.delay_ms:g}",
            f"{seat.races_won:,}",
            f"{seat.races_lost:,}",
            _rate(seat.share_won) if seat.share_won.n else "-",
            _mean(seat.score),
        )
    return table


def round_table(summary: Summary) -> Table:
    """Length, actions and refusals of the rounds, and how they ended."""
    rounds = summary.rounds
    table = Table(title=f"Rounds ({rounds.rounds:,})", title_justify="left")
    for name in ("", "mean", "p50", "p90", "min", "max"):
        table.add_column(name, justify="right" if name else "left", no_wrap=not name)
    table.add_row(*_spread_row("simulated seconds", rounds.duration_s, 1))
    table.add_row(*_spread_row("actions", rounds.actions, 1))
    table.add_row(*_spread_row('refusals ("beaten to it")', rounds.refusals, 1))
    if rounds.match_rounds is not None:
        table.add_row(*_spread_row("rounds per match", rounds.match_rounds, 1))
    endings = ", ".join(f"{name.replace('_', ' ')} {count:,}" for name, count in rounds.ended_by.items())
    table.caption = f"ended by: {endings}"
    table.caption_justify = "left"
    return table


def headline(report: SimReport) -> str:
    """One line saying what was simulated."""
    config = report.config
    changed = written(config.rules.changes()) or "classic"
    amount = f"{config.rounds:,} deals" if config.rounds is not None else f"{config.matches:,} matches"
    duplicate = f" × {config.rotations} rotations (duplicate)" if config.duplicate else ""
    network = ""
    latency = config.latency
    if latency is not None:
        delays = ",".join(f"{d * 1000:g}" for d in latency.delay_s)
        jitters = ",".join(f"{j * 1000:g}" for j in latency.jitter_s) if any(latency.jitter_s) else ""
        network = f", latency {delays} ms" + (f" + jitter {jitters} ms" if jitters else "")
        network += f", {latency.arbitration.value} judging"
        if latency.fair:
            network += f" (window {latency.window_s * 1000:g} ms, cap {latency.cap_s * 1000:g} ms)"
        if config.duplicate:
            network += " (the delays stay with the seats)"
    where = f"{config.worker_count} worker(s)"
    if config.ray is not None:
        where = f"Ray ({'a local Ray' if config.ray == 'local' else config.ray}, {config.worker_count} tasks in flight)"
    return (
        f"{config.players} players, rules {changed}, {amount}{duplicate}{network}, seed {config.seed}: "
        f"{len(report.rounds):,} rounds in {report.wall_s:.1f} s on {where}"
    )


def print_tables(report: SimReport, summary: Summary, console: Console | None = None) -> None:
    if console is None:
        console = Console()
        if not console.is_terminal:  # piped: wide enough that no figure is wrapped
            console = Console(width=max(console.width, 140))
    console.print(headline(report), highlight=False)
    console.print(bot_table(summary))
    if summary.seats is not None:
        console.print(seat_table(summary.seats, summary.confidence))
    console.print(round_table(summary))


# --- files ----------------------------------------------------------------------------


def to_json(report: SimReport, summary: Summary) -> dict[str, Any]:
    """``{"config", "rounds", "summary"}``, plus ``"matches"`` in matches mode."""
    config = report.config
    labels = config.labels()
    rounds = []
    for number, played in enumerate(report.rounds, start=1):
        item: dict[str, Any] = {"round": number, "deal": played.deal, **played.result.to_dict()}
        item["bot_index"] = list(played.seating)
        item["bots"] = [labels[bot] for bot in played.seating]
        if config.matches is not None:
            item["match"] = played.match
            item["match_round"] = played.match_round
        rounds.append(item)
    data: dict[str, Any] = {"config": config.to_dict(), "rounds": rounds}
    if config.matches is not None:
        data["matches"] = [
            {
                "match": m.match,
                "deal": m.deal,
                "seed": m.seed,
                "rotation": m.rotation,
                "bot_index": list(m.seating),
                "bots": [labels[bot] for bot in m.seating],
                "rounds": m.rounds,
                "totals": list(m.totals),
                "winners": list(m.winners),
                "winning_bots": sorted(set(m.winning_bots())),
                "complete": m.complete,
            }
            for m in report.matches
        ]
    data["summary"] = summary.to_dict()
    return data


def write_json(path: Path, report: SimReport, summary: Summary) -> None:
    path.write_text(json.dumps(to_json(report, summary)) + "\n", encoding="utf-8")  # compact: runs get long


def csv_rows(report: SimReport) -> Iterator[list[Any]]:
    labels = report.config.labels()
    matches = report.config.matches is not None
    for number, played in enumerate(report.rounds, start=1):
        r = played.result
        for seat, bot in enumerate(played.seating):
            row: list[Any] = [
                number,
                r.seed,
                r.rotation,
                seat,
                labels[bot],
                r.scores[seat],
                r.center[seat],
                r.stack_left[seat],
                r.ended_by,
                r.actions,
                r.refusals,
                round(r.duration_s, 3),
                r.races_won[seat] if r.races_won else 0,
                r.races_lost[seat] if r.races_lost else 0,
            ]
            if matches:
                row.append(played.match)
            yield row


def write_csv(path: Path, report: SimReport) -> None:
    columns = [*CSV_COLUMNS, "match"] if report.config.matches is not None else list(CSV_COLUMNS)
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(columns)
        writer.writerows(csv_rows(report))


def write_plot(path: Path, report: SimReport) -> None:
    """A PNG: each bot's round scores as box plots, and a histogram of round lengths."""
    from matplotlib.figure import Figure  # noqa: PLC0415 -- slow to import: only when a plot is asked for

    config = report.config
    scores: list[list[int]] = [[] for _ in config.bots]
    for played in report.rounds:
        for seat, bot in enumerate(played.seating):
            scores[bot].append(played.result.scores[seat])
    figure = Figure(figsize=(11, 4.5), layout="constrained")
    left, right = figure.subplots(1, 2)
    left.boxplot(scores, orientation="horizontal", tick_labels=config.labels(), showmeans=True)
    left.invert_yaxis()  # bot 1 on top, as in the table
    left.set_title("Round score per bot")
    left.set_xlabel("score")
    left.grid(axis="x", alpha=0.3)
    durations = [played.result.duration_s for played in report.rounds]
    right.hist(durations, bins=min(40, max(5, len(durations) // 10)), color="tab:blue", alpha=0.8)
    right.set_title(f"Round length ({len(durations):,} rounds)")
    right.set_xlabel("simulated seconds")
    right.set_ylabel("rounds")
    figure.suptitle(headline(report).partition(":")[0])
    figure.savefig(path, format="png", dpi=100)


# --- the command ----------------------------------------------------------------------


def simulate(
    config: SimConfig,
    *,
    json_path: Path | None = None,
    csv_path: Path | None = None,
    plot_path: Path | None = None,
    quiet: bool = False,
    console: Console | None = None,
) -> SimReport:
    """``ligretto simulate``: run with a progress bar, print the tables, write the files."""
    what = "rounds" if config.matches is None else "matches"
    bar = Console(stderr=True)
    if quiet or not bar.is_terminal:  # a bar only where someone watches
        report = run(config)
    else:
        with progress_bar(f"simulating {what}", config.deals * config.rotations, bar) as on_progress:
            report = run(config, on_progress)
    summary = summarise(report)
    print_tables(report, summary, console)
    if json_path is not None:
        write_json(json_path, report, summary)
    if csv_path is not None:
        write_csv(csv_path, report)
    if plot_path is not None:
        write_plot(plot_path, report)
    return report
