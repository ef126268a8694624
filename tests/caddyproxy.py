"""Debian's Caddy (installed when missing) in front of real ``ligretto serve`` processes on
127.0.0.1, with the repository's ``deploy/Caddyfile``: its site's address and its upstreams
rewritten to this machine's ports (``tests/deploy/test_packaging.py``).  Caddy writes its
log as JSON lines; :class:`Caddy` reads in it when its active health check marked an
upstream down or up again (Caddy 2.6's admin API does not tell)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debianpackages import ensure_installed
from nginxproxy import DEPLOY, WAIT_S, start_proxy, stop_proxy

CADDY = "/usr/bin/caddy"
SITE = re.compile(r"^(?P<address>[^\s#{}]+) \{$", re.M)
"""The first site block's address (``ligretto.example.org {``)."""
HEALTH_CHECKER = "http.handlers.reverse_proxy.health_checker.active"
MARKED_DOWN = ("HTTP request failed", "status code out of tolerances")
"""What Caddy 2.6's active health check logs as it marks an upstream down: no answer (or
refused), or a status outside 2xx-3xx (``/readyz``'s 503)."""
MARKED_UP = ("host is up",)
"""What it logs as an upstream that was down passes a check again."""


def caddy_config(places: dict[str, int], listen: int, folder: Path) -> Path:
    """deploy/Caddyfile as Caddy runs it here: its site plain HTTP on ``127.0.0.1:listen``
    (no certificate to get), each upstream found in ``places`` (``"app1:8000"``) its port
    on 127.0.0.1, and global options that keep it to the test (no admin endpoint on the
    shared port 2019; its data and saved configuration in ``folder``, :func:`caddy_env`)."""
    site = (DEPLOY / "Caddyfile").read_text()
    lines = [line for line in site.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert lines[0] != "{", "deploy/Caddyfile has global options: merge the test's into them"
    site, found = SITE.subn(f"http://127.0.0.1:{listen} {{", site, count=1)
    assert found == 1, "no site block in deploy/Caddyfile"
    for where, port in places.items():
        site = re.sub(rf"(?<=\s){re.escape(where)}(?=\s)", f"127.0.0.1:{port}", site)
    config = folder / "Caddyfile"
    config.write_text("{\n\tadmin off\n}\n\n" + site)
    return config


def caddy_env(folder: Path) -> dict[str, str]:
    """Caddy's environment here: its data and configuration folders in ``folder``."""
    home = folder / "caddy-home"
    home.mkdir(exist_ok=True)
    return {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home), "XDG_CONFIG_HOME": str(home)}


def validate(config: Path, folder: Path) -> subprocess.CompletedProcess[str]:
    """``caddy validate`` of a Caddyfile as it is (its TLS site included)."""
    ensure_installed("caddy", Path(CADDY).exists)
    command = [CADDY, "validate", "--adapter", "caddyfile", "--config", str(config)]
    return subprocess.run(command, capture_output=True, text=True, check=False, env=caddy_env(folder))


@dataclass
class Caddy:
    """A running Caddy and its log."""

    process: subprocess.Popen[bytes]
    log: Path
    port: int

    @classmethod
    def start(cls, config: Path, listen: int, folder: Path) -> Caddy:
        """Caddy (installed when missing) on ``config`` in the foreground, once it listens."""
        ensure_installed("caddy", Path(CADDY).exists)
        log = folder / "caddy.log"
        command = [CADDY, "run", "--adapter", "caddyfile", "--config", str(config)]
        return cls(start_proxy(command, listen, log, caddy_env(folder)), log, listen)

    def stop(self) -> None:
        stop_proxy(self.process)

    def mark(self) -> int:
        """Where the log ends now: :meth:`wait_for_check` reads what comes after."""
        return self.log.stat().st_size

    def wait_for_check(self, messages: tuple[str, ...], upstream: int, since: int) -> float:
        """The time (Unix seconds, Caddy's clock) of the first health check of the upstream
        on ``127.0.0.1:upstream`` logged after ``since`` with one of ``messages``
        (:data:`MARKED_DOWN`, :data:`MARKED_UP`); waits for it up to :data:`WAIT_S`."""
        host = f"127.0.0.1:{upstream}"
        deadline = time.monotonic() + WAIT_S
        while True:
            for entry in self.health_checks(since):
                if entry.get("host") == host and entry.get("msg") in messages:
                    return float(entry["ts"])
            assert time.monotonic() < deadline, f"Caddy did not log {messages} of {host}:\n{self.log.read_text()}"
            time.sleep(0.05)

    def health_checks(self, since: int) -> list[dict[str, Any]]:
        """The active health check's log entries after ``since`` (whole lines only)."""
        with self.log.open("rb") as file:
            file.seek(since)
            *lines, _ = file.read().decode(errors="replace").split("\n")  # the last one may be half written
        entries = [json.loads(line) for line in lines if line.startswith("{")]
        return [entry for entry in entries if entry.get("logger") == HEALTH_CHECKER]
