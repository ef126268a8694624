"""``ligretto profile URL`` against a real ``ligretto serve`` and its SQLite file, with a
temporary state directory per device: shown, renamed, its back symbol changed, linked and
claimed into a second state directory (the same id), deleted (asked first); bad input
refused in one line with exit code 2 (a server not answering: 1) and nothing changed; the
secret never printed."""

from __future__ import annotations

import io
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from ligretto.cli import main
from ligretto.terminal.profiles import ProfileFile, ProfileKeeper
from realserver import ServerProcess


class Device:
    """One terminal: its own state directory; runs ``ligretto profile`` there."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        self.folder = folder
        self.monkeypatch = monkeypatch
        self.capsys = capsys
        self.file = ProfileFile(folder / "ligretto" / "profiles.json")
        self.printed: list[str] = []

    def run(self, *argv: str, answer: str | None = None) -> tuple[int, str, str]:
        self.monkeypatch.setenv("XDG_STATE_HOME", str(self.folder))
        self.monkeypatch.setattr("sys.stdin", io.StringIO("" if answer is None else answer + "\n"))
        code = main(["profile", *argv])
        out, err = self.capsys.readouterr()
        self.printed += [out, err]
        return code, out, err

    def kept(self) -> dict[str, Any]:
        assert stat.S_IMODE(self.file.path.stat().st_mode) == 0o600
        data: dict[str, Any] = json.loads(self.file.path.read_text())
        return data


@pytest.fixture
def devices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> list[Device]:
    return [Device(tmp_path / name, monkeypatch, capsys) for name in ("first", "second", "third")]


def refused(result: tuple[int, str, str], message: str, code: int = 2) -> None:
    """Refused in one line: what was asked (exit code 2), or no server answering (1)."""
    got, out, err = result
    assert got == code and out == ""
    prefix = "ligretto profile: error: " if code == 2 else "ligretto profile: "
    assert err.startswith(prefix) and message in err and len(err.strip().splitlines()) == 1


def test_shown_renamed_linked_claimed_and_deleted(server: ServerProcess, devices: list[Device]) -> None:
    first, second, third = devices
    secret, _ = ProfileKeeper(server.url, first.file).for_join("Tess", "moon")  # what the first join does
    assert secret is not None
    (entry,) = first.kept().values()
    pid = entry["id"]

    code, out, _ = first.run(server.url)
    assert code == 0
    assert out.splitlines() == [
        f"profile Tess (back symbol moon) on {server.url}",
        f"id: {pid}",
        f"history: {server.url}/#/history/{pid}",
    ]

    code, out, _ = first.run(server.url, "--rename", "Tessa", "--symbol", "heart")
    assert code == 0 and out.startswith(f"profile Tessa (back symbol heart) on {server.url}")
    assert server.http("GET", f"/api/profiles/{pid}/stats")[0] == 200
    assert ProfileKeeper(server.url, first.file).api.me(secret).name == "Tessa"

    code, out, _ = first.run(server.url, "--link")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("one-time code: ") and "valid 10 minutes, until " in lines[0]
    link_code = lines[0].split()[2]
    assert lines[1] == f"claim link: {server.url}/#/claim/{link_code}"

    code, out, _ = second.run(server.url, "--claim", f"{server.url}/#/claim/{link_code}")  # the link pasted
    assert code == 0 and out.splitlines()[:2] == [f"profile Tessa (back symbol heart) on {server.url}", f"id: {pid}"]
    (claimed,) = second.kept().values()
    assert set(claimed) == {"id", "secret"} and claimed["id"] == pid and claimed["secret"] != secret
    assert first.kept() == {server.url: entry}  # the first device keeps its own

    refused(third.run(server.url, "--claim", link_code), "used_code")  # a code works once
    assert not third.file.path.exists()

    code, out, _ = second.run(server.url, "--delete", answer="n")
    assert code == 0 and "kept: nothing deleted" in out and second.kept() == {server.url: claimed}
    code, out, _ = second.run(server.url, "--delete", answer="y")
    assert code == 0 and out.strip().endswith(f"[y/N] deleted profile Tessa ({pid}) on {server.url}")
    assert second.kept() == {}
    assert server.http("GET", f"/api/profiles/{pid}/matches")[0] == 404  # gone for every device
    refused(first.run(server.url), "no longer knows this profile")
    assert first.kept() == {}  # forgotten there too

    printed = "".join(device for d in devices for device in d.printed)
    assert secret not in printed and claimed["secret"] not in printed


def test_delete_with_yes_asks_nothing(server: ServerProcess, devices: list[Device]) -> None:
    first = devices[0]
    ProfileKeeper(server.url, first.file).for_join("Tess")
    code, out, _ = first.run(server.url, "--delete", "--yes")
    assert code == 0 and out.startswith("deleted profile Tess") and first.kept() == {}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rename", "x" * 25], "--rename: "),
        (["--rename", "  "], "a display name is required"),
        (["--symbol", "skull"], "--symbol: a back symbol is one of sun, moon, star, heart, not 'skull'"),
        (["--link", "--delete"], "go alone"),
        (["--rename", "Ann", "--link"], "go alone"),
        (["--yes"], "--yes only confirms --delete"),
        (["--claim", "not a code!"], "is no one-time code"),
        (["--claim", "AAAAAAAA"], "bad_code"),
    ],
)
def test_bad_input_is_refused_in_one_line_and_changes_nothing(
    server: ServerProcess, devices: list[Device], argv: list[str], message: str
) -> None:
    first = devices[0]
    secret, _ = ProfileKeeper(server.url, first.file).for_join("Tess", "star")
    assert secret is not None
    before = first.kept()
    refused(first.run(server.url, *argv), message)
    assert first.kept() == before
    me = ProfileKeeper(server.url, first.file).api.me(secret)
    assert (me.name, me.symbol) == ("Tess", "star")


def test_without_a_kept_profile_or_server_it_says_so(server: ServerProcess, devices: list[Device]) -> None:
    first = devices[0]
    refused(first.run(server.url), f"no profile kept for {server.url}")
    refused(first.run("ftp://example.org"), "bad server address")
    refused(first.run("http://127.0.0.1:1", "--claim", "AAAAAAAA"), "cannot reach http://127.0.0.1:1", code=1)
    assert not first.file.path.exists()
