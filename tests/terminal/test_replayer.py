"""``ligretto replay FILE`` (``ligretto.terminal.replayer``): verify first, then the round
played back as a spectator saw it, at its own pace scaled by ``--speed`` or by Enter.
The pace is tested with an injected sleep; the command itself in a subprocess."""

from __future__ import annotations

import io
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from ligretto.bots import parse_bots
from ligretto.engine import Round, RuleSet
from ligretto.engine.views import RoundView
from ligretto.replay import ReplayDoc, decode, encode, verify, write_round
from ligretto.sim import simulate_round
from ligretto.terminal.faces import label
from ligretto.terminal.replayer import Pace, play, waits

SEED = 5


def short_doc(actions: int = 24) -> ReplayDoc:
    """The opening of a bots' round of three (unfinished: it verifies as such)."""
    rules = RuleSet()
    game = Round.deal(rules, 3, SEED)
    simulate_round(rules, parse_bots("smart:skilled", 3), SEED, game=game)
    log = [(action, 0.1 * index + (0.3 if index > 10 else 0.0)) for index, action in enumerate(game.log[:actions])]
    return write_round(rules, ["Ann", "Bo", "Cy"], SEED, log)


def played_back(doc: ReplayDoc, pace: Pace) -> str:
    out = io.StringIO()
    play(verify(doc), Console(file=out, width=120, color_system=None), pace)
    return out.getvalue()


def test_the_waits_follow_the_rounds_times_scaled_by_the_speed() -> None:
    verified = verify(short_doc())
    times = [frame.t for frame in verified.frames]
    expected = [times[0]] + [b - a for a, b in itertools.pairwise(times)]  # type: ignore[operator]
    assert waits(verified.frames, 1.0) == pytest.approx(expected)
    assert waits(verified.frames, 4.0) == pytest.approx([gap / 4 for gap in expected])
    slept: list[float] = []
    played_back(short_doc(), Pace(speed=2.0, sleep=slept.append))
    assert sum(slept) == pytest.approx((times[-1] or 0) / 2)
    assert max(slept) == pytest.approx(0.4 / 2), "the gap after action 10 is kept"


def test_step_waits_for_enter_before_each_action() -> None:
    lines: list[str] = []
    slept: list[float] = []

    def enter() -> str:
        lines.append("\n")
        return "\n"

    shown = played_back(short_doc(8), Pace(step=True, sleep=slept.append, read_line=enter))
    assert len(lines) == 8 and not slept
    assert shown.count("action ") == 8 and "the deal" in shown


def area_lines(block: str, names: list[str]) -> dict[str, str]:
    return {name: next(line for line in block.splitlines() if f" {name} " in f" {line} ") for name in names}


def public_labels(board: RoundView, seat: int) -> list[str]:
    area = board.areas[seat]
    cards = [column[-1] for column in area.row if column] + [area.stack_top, area.discard_top]
    return sorted(label(str(card)) for card in cards if card is not None)


LABEL = re.compile(r"[◆▲●■]\d+")


def test_each_board_shows_exactly_the_spectator_view_and_no_hidden_card() -> None:
    doc = short_doc()
    verified = verify(doc)
    shown = played_back(doc, Pace(sleep=lambda _: None))
    blocks = re.split(r"^(?=the deal|action \d+ at)", shown, flags=re.MULTILINE)[1:]
    boards = [verified.dealt] + [frame.board for frame in verified.frames]
    assert len(blocks) == len(boards)
    for block, board in zip(blocks, boards, strict=True):
        for seat, line in enumerate(area_lines(block, verified.names).values()):
            assert sorted(LABEL.findall(line)) == public_labels(board, seat), line
            area = board.areas[seat]
            assert f"({area.stack_size})" in line and f"({area.discard_size})" in line
        center = next(line for line in block.splitlines() if line.startswith("center:"))
        assert len(LABEL.findall(center)) == len(board.center)
    assert "outcome: none" in shown


def run_command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ligretto", "replay", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_the_command_verifies_and_plays_a_file(tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_bytes(encode(short_doc()))
    done = run_command(str(path), "--verify-only")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "verified: 24 actions, outcome none (the round was not finished), scores " + " ".join(
        str(s) for s in short_doc().end.scores
    )
    played = run_command(str(path), "--speed", "8")
    assert played.returncode == 0, played.stderr
    assert played.stdout.count("action ") == 24 and "outcome: none" in played.stdout


def test_the_command_refuses_a_tampered_file_naming_the_action(tmp_path: Path) -> None:
    data = json.loads(encode(short_doc()))
    data["actions"][12]["state"] = "123456789abc"
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    done = run_command(str(path), "--speed", "8")
    assert done.returncode == 2 and done.stdout == ""
    assert re.fullmatch(rf"ligretto replay: error: {re.escape(str(path))}: action 12 \(at [\d.]+ s\).*\n", done.stderr)
    assert decode(path.read_bytes()).actions[12].state == "123456789abc"


def test_on_a_terminal_the_board_is_redrawn_in_place() -> None:
    out = io.StringIO()
    slept: list[float] = []
    console = Console(file=out, width=120, force_terminal=True, color_system=None)
    verified = verify(short_doc(6))
    play(verified, console, Pace(sleep=slept.append))
    shown = out.getvalue()
    assert slept == [gap for gap in waits(verified.frames, 1.0) if gap > 0] and len(slept) == 5, "the first at 0 s"
    assert "\x1b[" in shown, "Live moves the cursor back to redraw"
    assert "action 5 at" in shown and "outcome: none" in shown


def test_a_name_with_control_characters_or_markup_is_printed_harmlessly() -> None:
    doc = short_doc(4)
    doc.seats[0].name = "[red]Ann\x1b[2J"
    out = io.StringIO()
    play(verify(doc), Console(file=out, width=120, color_system=None), Pace(sleep=lambda _: None))
    assert "[red]Ann[2J" in out.getvalue() and "\x1b" not in out.getvalue()
