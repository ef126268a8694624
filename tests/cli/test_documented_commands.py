"""Every ``ligretto`` command the README and docs/ show works as written from the
repository's root: each command line of their fenced shell blocks (``ligretto ...``,
``python -m ligretto...``, behind ``VAR=value``, ``taskset -c N`` or ``.venv/bin/``) parses
against the command's real parser, so a removed or misspelt option fails here; the cheap
ones (the simulator's and the bots' one-liners) really run, as processes, with their counts
made small.  The README's table of commands names
only options its commands have."""

from __future__ import annotations

import argparse
import importlib
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ligretto.cli import build_parser, main
from ligretto.harness import run as loadtest
from ligretto.harness import stressrun

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
SHELL = ("sh", "bash", "")
"""The fenced blocks read: ``sh``, ``bash`` and unmarked ones (JSON, Python and the like are not)."""
PLACEHOLDERS = {"$!": "4242", "PID": "4242"}
"""What the docs leave to the reader, as a process id."""
SMALL = {"--rounds": "2", "--matches": "1", "--workers": "1"}
"""The counts of a ``simulate`` run for real (one on Ray is only parsed: no cluster here)."""


class Parsed(Exception):
    """Raised in place of running a command once its arguments parsed."""


class Command:
    """One command line of the docs: its environment, program and arguments."""

    def __init__(self, where: str, env: dict[str, str], program: str, args: list[str]) -> None:
        self.where, self.env, self.program, self.args = where, env, program, args

    def __repr__(self) -> str:
        return f"{self.where}: {self.program} {shlex.join(self.args)}"


def fenced_lines(text: str) -> Iterator[str]:
    """The lines of the shell blocks of a Markdown text, continuation lines joined."""
    for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        if lang in SHELL:
            yield from body.replace("\\\n", " ").splitlines()


def segments(line: str) -> Iterator[list[str]]:
    """The simple commands of a shell line (split at ``&&``, ``;``, ``|``, ``&``), without
    comments and redirections."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    tokens, skip = [], False
    for token in lexer:
        if skip:
            skip = False
        elif token in ("&&", "||", "&", ";", "|"):
            yield tokens
            tokens = []
        elif set(token) <= set("<>&") and token:
            skip = True  # a redirection and its target
        else:
            tokens.append(token)
    yield tokens


def command(where: str, tokens: list[str]) -> Command | None:
    """The ``ligretto`` command of one simple shell command, if it is one."""
    env = {}
    while tokens and re.match(r"[A-Za-z_]\w*=", tokens[0]):
        name, _, value = tokens[0].partition("=")
        env[name] = value
        tokens = tokens[1:]
    if tokens[:2] == ["taskset", "-c"]:
        tokens = tokens[3:]
    if not tokens or tokens[0].endswith("/"):  # (a folder in a tree: src/ligretto/)
        return None
    program, args = Path(tokens[0]).name, [PLACEHOLDERS.get(token, token) for token in tokens[1:]]
    if program == "ligretto" and not (args and args[0].endswith(":")):  # (not a line of its output)
        return Command(where, env, "ligretto", args)
    if program in ("python", "python3") and args[:1] == ["-m"] and args[1].partition(".")[0] == "ligretto":
        return Command(where, env, args[1], args[2:])
    return None


def commands() -> list[Command]:
    found = []
    for path in DOCS:
        where = path.relative_to(ROOT).as_posix()
        for line in fenced_lines(path.read_text()):
            try:
                simple = list(segments(line))
            except ValueError:  # an unmarked block's prose, a line of a quoted `python -c` program
                assert not re.search(r"(^|\s)ligretto \w", line), f"{where}: {line}"
                continue
            found += [c for c in (command(where, tokens) for tokens in simple) if c is not None]
    return found


COMMANDS = commands()


def parses(command: Command, monkeypatch: pytest.MonkeyPatch) -> argparse.Namespace:
    """The arguments as the command's own parser reads them, nothing run."""
    original = argparse.ArgumentParser.parse_args

    def parse_only(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        raise Parsed(original(self, *args, **kwargs))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_only)
    run: Callable[[list[str]], Any] = main
    if command.program not in ("ligretto", "ligretto.__main__"):
        run = importlib.import_module(command.program).main
    try:
        run(command.args)
    except Parsed as parsed:
        namespace: argparse.Namespace = parsed.args[0]
        return namespace
    except SystemExit:
        pass
    pytest.fail(f"{command} does not parse")


def test_the_docs_show_the_commands_looked_for() -> None:
    """The reading of the docs finds what it should (a change of format would empty it)."""
    shown = {repr(command).split(": ", 1)[1] for command in COMMANDS}
    assert "ligretto serve" in shown  # the README's first command, behind .venv/bin/
    assert any(line.startswith("ligretto.harness.stress --scenario idle") for line in shown)
    assert any(line.startswith("ligretto loadtest --url") and "--server-pid 4242" in line for line in shown)
    assert any(command.env == {"PYTHONPATH": "."} for command in COMMANDS)
    assert len(COMMANDS) >= 40


def test_every_documented_command_parses(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for command in COMMANDS:
        with monkeypatch.context() as patch:
            parses(command, patch)
        assert capsys.readouterr().err == "", command


def test_the_cheap_documented_commands_run(tmp_path: Path) -> None:
    """As a user runs them, from a folder holding what the docs have them save (docs/bots.md's
    strategy as ``my_bots.py``), all started at once; ``PYTHONPATH=.`` comes before the
    test's own path to this checkout."""
    bots = (ROOT / "docs" / "bots.md").read_text()
    strategy = next(block for block in re.findall(r"```python\n(.*?)```", bots, re.DOTALL) if "@register" in block)
    (tmp_path / "my_bots.py").write_text(strategy)
    cheap = [c for c in COMMANDS if c.program == "ligretto" and c.args[:1] == ["simulate"] and "--ray" not in c.args]
    started = []
    for command in cheap:
        args = [SMALL.get(previous, arg) for previous, arg in zip(["", *command.args], command.args, strict=False)]
        args += ["--workers", "1", "--quiet"] + ([] if {"--rounds", "--matches"} & set(args) else ["--rounds", "2"])
        env = dict(os.environ)
        for name, value in command.env.items():
            env[name] = os.pathsep.join([value, env[name]]) if name == "PYTHONPATH" and env.get(name) else value
        process = subprocess.Popen(
            [sys.executable, "-m", "ligretto", *args],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append((command, args, process))
    assert {c.where for c in cheap} == {"docs/bots.md", "docs/simulator.md"}
    for command, args, process in started:
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, f"{command} (run as {shlex.join(args)}):\n{err}"
        assert "Per bot" in out
    assert {"run.json", "run.csv", "run.png"} <= {path.name for path in tmp_path.iterdir()}


def test_the_readme_table_names_only_options_its_commands_have() -> None:
    """``ligretto simulate [... --stamp sent|seen ...]`` fails: the README's synopses name
    options of the real parsers."""
    parsers = {"loadtest": loadtest.build_parser(), "stress": stressrun.build_parser()}
    top = build_parser()
    subparsers = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    rows = re.findall(r"^\| `ligretto (\w+)([^`]*)` \|", (ROOT / "README.md").read_text(), re.MULTILINE)
    assert {name for name, _ in rows} >= {"serve", "simulate", "play", "join", "profile", "bench", "replay"}
    for name, synopsis in rows:
        parser = parsers.get(name) or subparsers.choices[name]
        known = {option for action in parser._actions for option in action.option_strings}
        named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", synopsis))
        assert named <= known, f"ligretto {name}: {sorted(named - known)} in the README, not in the parser"
