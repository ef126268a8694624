"""Every ``ligretto`` command refuses bad input, and says what failed, in one line naming
the command (docs/architecture.md, "The command line's errors"):

- ``ligretto <command>: error: ...`` and exit code 2 for what was typed (a value missing,
  negative, zero, huge or no number, an unknown name or code, options that do not go
  together), found by the parser, the command or the server it asks;
- ``ligretto <command>: ...`` and exit code 1 for what the command needs and did not get (a
  server or Redis that does not answer, a database that cannot be opened).

One parametrised test per family of commands calls ``ligretto.cli.main`` in process (what
the ``ligretto`` script runs); the last test starts real processes, all at once, for the
failures that end ``ligretto serve`` and to prove the exit codes and standard error of the
real thing."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ligretto.cli import RUN, main
from ligretto.terminal.app import LigrettoApp
from ligretto.terminal.remote import RemoteTable
from realserver import ServerProcess, free_port, running

Case = tuple[list[str], int, str]
"""The arguments, the exit code and what the one line says (``{dead}``: the address of a
port nothing answers on; ``{server}``: a running server's; ``{code}``: a table of it)."""


@pytest.fixture(scope="module")
def dead() -> Iterator[str]:
    """``127.0.0.1:PORT`` of a port bound and never listened on: a connection is refused."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{bound.getsockname()[1]}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running(ServerProcess.in_folder(tmp_path_factory.mktemp("cli-server"))) as process:
        yield process


COMMANDS = {*RUN, "loadtest", "stress"}


def said(capsys: pytest.CaptureFixture[str], argv: list[str], code: int, message: str) -> str:
    """Run ``ligretto *argv`` in process and check its exit code and its one line; the line."""
    command = f"ligretto {argv[0]}" if argv and argv[0] in COMMANDS else "ligretto"
    got = main(argv)
    out, err = capsys.readouterr()
    assert (got, out) == (code, ""), err
    assert len(err.splitlines()) == 1 and err.endswith("\n"), err
    prefix = f"{command}: error: " if code == 2 else f"{command}: "
    assert err.startswith(prefix) and (code == 2 or "error:" not in err), err
    assert message in err, err
    return err


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        ([], 2, "the following arguments are required: command"),
        (["simulat"], 2, "argument command: invalid choice: 'simulat'"),
        (["demo", "--players", "13"], 2, "argument --players: must be 2-12, not 13"),
        (["demo", "--players", "0"], 2, "argument --players: must be 2-12, not 0"),
        (["demo", "--players", "x"], 2, "argument --players: expected a whole number, not 'x'"),
        (["demo", "--players"], 2, "argument --players: expected one argument"),
        (["demo", "--seed", "-1"], 2, "argument --seed: must be at least 0, not -1"),
        (["demo", "--seed", "1e5"], 2, "argument --seed: expected a whole number, not '1e5'"),
        (["demo", "--seed", "9" * 30], 2, "argument --seed: expected a whole number"),
        (["demo", "--rules", "nope"], 2, "unknown preset 'nope'"),
        (["demo", "--set", "row_size=9"], 2, "bad value '9' for option 'row_size'"),
        (["demo", "--set", "colour=blue"], 2, "unknown rule option 'colour'"),
        (["demo", "--set", "expert"], 2, "expected option=value"),
        (["rules", "--colour"], 2, "unrecognized arguments: --colour"),
    ],
)
def test_demo_and_rules(argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    said(capsys, argv, code, message)


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["bench", "--repeats", "0"], 2, "argument --repeats: must be at least 1, not 0"),
        (["bench", "--repeats", "-1"], 2, "argument --repeats: must be at least 1, not -1"),
        (["bench", "--actions", "0"], 2, "argument --actions: must be at least 1, not 0"),
        (["bench", "--actions", "many"], 2, "argument --actions: expected a whole number, not 'many'"),
        (["bench", "--sim-rounds", "0"], 2, "argument --sim-rounds: must be at least 1, not 0"),
        (["bench", "--only", "gpu"], 2, "argument --only: invalid choice: 'gpu'"),
        (["bench", "--races", "5"], 2, "--races is for --only fairness"),
        (["bench", "--only", "sim", "--window", "0"], 2, "--window is for --only fairness"),
        (["bench", "--quick"], 2, "--quick is for --only fairness"),
        (["bench", "--only", "fairness", "--window", "251"], 2, "argument --window: must be 0-250, not 251"),
        (["bench", "--only", "fairness", "--near-ms", "-1"], 2, "argument --near-ms: must be at least 0, not -1"),
        (["bench", "--only", "fairness", "--far-ms", "inf"], 2, "argument --far-ms: expected a number"),
        (["bench", "--only", "fairness", "--level", "godlike"], 2, "unknown bot smart:godlike"),
    ],
)
def test_bench(argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    said(capsys, argv, code, message)


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["simulate", "--bots", "clever:expert"], 2, "unknown strategy 'clever'"),
        (["simulate", "--bots", "smart:godlike"], 2, "unknown level 'godlike'"),
        (["simulate", "--bots", "smart,greedy"], 2, "2 bots named for 4 players"),
        (["simulate", "--bots", "smart*0"], 2, "bad repeat '0' in 'smart*0'"),
        (["simulate", "--players", "13"], 2, "argument --players: must be 2-12, not 13"),
        (["simulate", "--players", "1"], 2, "argument --players: must be 2-12, not 1"),
        (["simulate", "--players", "four"], 2, "argument --players: expected a whole number, not 'four'"),
        (["simulate", "--set", "row_size=9"], 2, "bad value '9' for option 'row_size'"),
        (["simulate", "--rules", "nope"], 2, "unknown preset 'nope'"),
        (["simulate", "--rounds", "5", "--matches", "5"], 2, "argument --matches: not allowed with argument --rounds"),
        (["simulate", "--rounds", "0"], 2, "argument --rounds: must be at least 1, not 0"),
        (["simulate", "--matches", "-2"], 2, "argument --matches: must be at least 1, not -2"),
        (["simulate", "--matches"], 2, "argument --matches: expected one argument"),
        (["simulate", "--workers", "0"], 2, "argument --workers: must be at least 1, not 0"),
        (["simulate", "--seed", "x"], 2, "argument --seed: expected a whole number, not 'x'"),
        (["simulate", "--json", "/no/such/dir/run.json"], 2, "--json /no/such/dir/run.json: no such directory"),
        (["simulate", "--csv", "/"], 2, "--csv /: is a directory"),
        (["simulate", "--colour"], 2, "unrecognized arguments: --colour"),
        (["simulate", "--latency", "10,100"], 2, "--latency: 2 values for 4 players: give one per seat"),
        (["simulate", "--latency", "10,10,-5,100"], 2, "--latency: -5 is not a number of milliseconds, 0 or more"),
        (["simulate", "--latency", "near"], 2, "--latency: not a number of milliseconds: 'near'"),
        (["simulate", "--latency", "10", "--jitter", "1,2"], 2, "--jitter: 2 values for 4 players"),
        (["simulate", "--latency", "10", "--window", "50"], 2, "--window and --cap are for --arbitration fair"),
        (["simulate", "--arbitration", "fair", "--cap", "-1"], 2, "argument --cap: must be at least 0, not -1"),
        (["simulate", "--arbitration", "fair", "--window", "nan"], 2, "argument --window: expected a number"),
        (["simulate", "--arbitration", "first"], 2, "argument --arbitration: invalid choice: 'first'"),
        (["simulate", "--import", "no_such_module_xyz"], 2, "--import no_such_module_xyz: No module named"),
        (["simulate", "--rounds", "1", "--ray", "nonsense"], 2, "--ray 'nonsense': expected HOST:PORT"),
    ],
)
def test_simulate(argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    said(capsys, argv, code, message)


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["serve", "--port", "99999"], 2, "argument --port: must be 1-65535, not 99999"),
        (["serve", "--port", "0"], 2, "argument --port: must be 1-65535, not 0"),
        (["serve", "--port", "http"], 2, "argument --port: expected a whole number, not 'http'"),
        (["serve", "--countdown", "-1"], 2, "argument --countdown: must be at least 0, not -1"),
        (["serve", "--countdown", "nan"], 2, "argument --countdown: expected a number such as 2.5, not 'nan'"),
        (["serve", "--max-connections", "-1"], 2, "argument --max-connections: must be at least 0, not -1"),
        (["serve", "--max-connections", "1e3"], 2, "argument --max-connections: expected a whole number"),
        (["serve", "--hello-timeout", "inf"], 2, "argument --hello-timeout: expected a number"),
        (["serve", "--tables-per-minute", "many"], 2, "argument --tables-per-minute: expected a whole number"),
        (["serve", "--log-level", "loud"], 2, "argument --log-level: invalid choice: 'loud'"),
        (["serve", "--db", "redis://:s3cret@h:6379/0"], 2, "--db: a database is a file, sqlite:///FILE or postgresql"),
        (["serve", "--db", "sqlite:///"], 2, "--db: an sqlite:/// URL names a file"),
        (["serve", "--redis", "http://:s3cret@h:6379"], 2, "--redis: a Redis is redis://HOST:PORT/N"),
        (["serve", "--advertise", "http://h:8001"], 2, "--advertise is for a process of a service: give --redis"),
    ],
)
def test_serve(argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """What is refused before a server starts (what ends one starting: the last test)."""
    assert "s3cret" not in said(capsys, argv, code, message)


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["loadtest", "--tables", "0"], 2, "--tables must be at least 1 and --flood 0 or more, not 0 and 0"),
        (["loadtest", "--players", "13"], 2, "--players must be 2-12, not 13"),
        (["loadtest", "--duration", "nan"], 2, "--duration must be more than 0, not nan"),
        (["loadtest", "--connect-rate", "0"], 2, "--connect-rate must be more than 0, not 0"),
        (["loadtest", "--tables", "x"], 2, "argument --tables: invalid int value: 'x'"),
        (["loadtest", "--url", "ftp://h"], 2, "bad server URL 'ftp://h'"),
        (["loadtest", "--url", "http://{dead}"], 1, "cannot reach http://{dead}: Connection refused"),
        (["stress", "--scenarios", "nope"], 2, "unknown scenario 'nope': expected malformed, idle"),
        (["stress", "--scale", "huge"], 2, "argument --scale: invalid choice: 'huge'"),
        (["stress", "--kills", "-1"], 2, "--kills must be 0 or more and --count at least 1"),
        (["stress", "--open-rate", "0"], 2, "--open-rate must be more than 0, not 0"),
    ],
)
def test_loadtest_and_stress(
    argv: list[str], code: int, message: str, dead: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dead server is said in one line, not as a report of nothing measured."""
    said(capsys, [arg.format(dead=dead) for arg in argv], code, message.format(dead=dead))


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["replay"], 2, "the following arguments are required: file"),
        (["replay", "/no/such/round.json"], 2, "/no/such/round.json: cannot read it: No such file or directory"),
        (["replay", "/"], 2, "/: cannot read it: Is a directory"),
        (["replay", "r.json", "--speed", "9"], 2, "argument --speed: must be 0.25-8, not 9"),
        (["replay", "r.json", "--speed", "fast"], 2, "argument --speed: expected a number such as 2.5, not 'fast'"),
    ],
)
def test_replay(argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    said(capsys, argv, code, message)


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["play", "--players", "1"], 2, "argument --players: must be 2-12, not 1"),
        (["play", "--players", "x"], 2, "argument --players: expected a whole number"),
        (["play", "--bots", "genius"], 2, "unknown strategy 'genius'"),
        (["play", "--bots", "smart:slow"], 2, "unknown level 'slow'"),
        (["play", "--players", "4", "--bots", "smart,greedy"], 2, "2 bots named for 3 players"),
        (["play", "--rules", "nope"], 2, "unknown preset 'nope'"),
        (["play", "--set", "expert"], 2, "expected option=value"),
        (["play", "--name", "  "], 2, "a display name is required"),
        (["play", "--lang", "xx"], 2, "no rulebook in language 'xx'"),
        (["play", "--arbitration", "speed"], 2, "argument --arbitration: invalid choice: 'speed'"),
        (["play", "--window", "251"], 2, "argument --window: must be 0-250, not 251"),
        (["play", "--window", "-1"], 2, "argument --window: must be 0-250, not -1"),
        (["play", "--window", "8.5"], 2, "argument --window: expected a whole number, not '8.5'"),
        (["play", "--seed", "-4"], 2, "argument --seed: must be at least 0, not -4"),
        (["join", "{server}", "--name", "Tess"], 2, "one of the arguments --code --queue is required"),
        (["join", "{server}", "--code", "ABC", "--queue", "--name", "Tess"], 2, "not allowed with argument"),
        (["join", "{server}", "--queue", "--seats", "13", "--name", "Tess"], 2, "--seats"),
        (["join", "{server}", "--queue", "--party", "nope", "--name", "T"], 2, "--queue: there is no party with that"),
        (["join", "{server}", "--queue", "--party", " ", "--name", "Tess"], 2, "--party: a party's code, or no value"),
        (["join", "{server}", "--code", "ABC", "--party", "--name", "Tess"], 2, "--party: only with --queue"),
        (["join", "--code", "ABC", "--name", "Tess"], 2, "the following arguments are required: url"),
        (["join", "ftp://example.org", "--code", "ABC", "--name", "Tess"], 2, "bad server address 'ftp://example.org'"),
        (["join", "{server}", "--code", "ABC", "--name", "x" * 25], 2, "limited to 24 characters"),
        (["join", "{server}", "--code", "ABC", "--name", "T", "--bot", "nope"], 2, "unknown strategy"),
        (["join", "{server}", "--code", " ", "--name", "Tess"], 2, "invite code is required"),
        (["join", "{server}", "--code", "ABC", "--name", "T", "--symbol", "skull"], 2, "--symbol: a back"),
        (["join", "{server}", "--code", "NOPE", "--name", "Tess"], 2, "--code NOPE: {server} has no table with that"),
        (["join", "http://{dead}", "--code", "{code}", "--name", "Tess"], 1, "cannot reach http://{dead}: Connection"),
        (["join", "{server}", "--code", "{code}", "--name", "Tess"], 0, ""),
        (["profile"], 2, "the following arguments are required: url"),
        (["profile", "{server}", "--link", "--claim", "ABCD"], 2, "go alone"),
        (["profile", "{server}", "--claim", "AAAAAAAA"], 2, "(bad_code)"),
        (["profile", "http://{dead}", "--claim", "AAAAAAAA"], 1, "cannot reach http://{dead}: Connection refused"),
    ],
)
def test_play_join_and_profile(  # noqa: PLR0917 -- the case, and where it runs
    argv: list[str],
    code: int,
    message: str,
    server: ServerProcess,
    dead: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``join`` asks the server for the table before its app starts: a server that is not
    running, or a code it does not know, is said within seconds, not by a client that tries
    again forever; a table it has is joined (the app would start)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    started: list[LigrettoApp] = []
    monkeypatch.setattr(LigrettoApp, "run", lambda app, *args, **kwargs: started.append(app))
    names = {"server": server.url, "dead": dead, "code": server.create_table() if "{code}" in argv else ""}
    argv = [arg.format(**names) for arg in argv]
    if code == 0:
        assert main(argv) == 0
        (app,) = started
        assert isinstance(app.transport, RemoteTable) and app.transport.code == names["code"]
        return
    said(capsys, argv, code, message.format(**names))
    assert not started


# --- real processes --------------------------------------------------------------------------


def test_real_processes_say_it_in_one_line_with_the_exit_code(tmp_path: Path, dead: str) -> None:
    """The real ``ligretto``, all started at once: what the parser refuses (2), and what ends
    ``ligretto serve`` after it bound its port (1, docs/deploy.md) — a database in no
    directory, a file that is no database, a Redis that does not answer (the store is not
    even made) — and a ``join`` and a ``loadtest`` with no server there (1)."""
    (tmp_path / "notes.db").write_text("not a database\n")
    db = tmp_path / "l.db"
    cases: list[tuple[list[str], int, str]] = [
        (["bench", "--repeats", "0"], 2, "ligretto bench: error: argument --repeats: must be at least 1, not 0"),
        (["serve", "--port", "99999"], 2, "ligretto serve: error: argument --port: must be 1-65535, not 99999"),
        (["serve", "--db", f"{tmp_path}/gone/l.db"], 1, f"ligretto serve: cannot open {tmp_path}/gone/l.db: no such"),
        (["serve", "--db", f"{tmp_path}/notes.db"], 1, f"ligretto serve: cannot open {tmp_path}/notes.db: file is not"),
        (["serve", "--db", str(db), "--redis", f"redis://{dead}/0"], 1, f"ligretto serve: no Redis answers at redis://{dead}/0"),
        (["join", f"http://{dead}", "--code", "ABC", "--name", "T"], 1, f"ligretto join: cannot reach http://{dead}"),
        (["loadtest", "--url", f"http://{dead}"], 1, f"ligretto loadtest: cannot reach http://{dead}: Connection"),
    ]  # fmt: skip
    started = []
    for argv, _, _ in cases:
        port = ["--port", str(free_port())] if argv[0] == "serve" and "--port" not in argv else []
        command = [sys.executable, "-m", "ligretto", *argv, *port]
        started.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for process, (argv, code, line) in zip(started, cases, strict=True):
        out, err = process.communicate(timeout=120)
        assert (process.returncode, out) == (code, ""), (argv, out, err)
        assert len(err.splitlines()) == 1 and err.startswith(line), (argv, err)
    assert not db.exists(), "Redis is asked before the store is made"
