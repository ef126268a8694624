"""Debian's nginx (installed when missing) in front of real ``ligretto serve`` processes
on 127.0.0.1, with the repository's ``deploy/nginx.conf``: its upstream servers and its
``listen`` rewritten to this machine's ports (``tests/deploy/test_packaging.py``, and the
benchmarks of failover through one address); and what running any reverse proxy here
takes (:func:`start_proxy`, :func:`stop_proxy`; Caddy's in ``tests/caddyproxy.py``)."""

from __future__ import annotations

import re
import socket
import subprocess
import time
from pathlib import Path

from debianpackages import ensure_installed

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
NGINX = "/usr/sbin/nginx"
WAIT_S = 10.0
UPSTREAM_SERVER = re.compile(r"^(?P<indent>[ \t]*)server\s+app\d+:8000(?P<parameters>[^;]*);\n", re.M)


def nginx_config(places: dict[str, int], listen: int, prefix: Path, upstreams: list[int] | None = None) -> Path:
    """deploy/nginx.conf as Debian's nginx runs it here: its upstream servers and its
    ``listen`` on 127.0.0.1's ports, inside what the nginx image's own nginx.conf
    gives it (the ``http`` block) and a foreground master's settings.  ``places`` maps a
    server of the file (``"app1:8000"``) to its port here; ``upstreams`` (when given)
    replaces the file's upstream servers by these ports, each with the parameters of the
    file's first one (``max_fails=0``)."""
    site = (DEPLOY / "nginx.conf").read_text()
    site = re.sub(r"listen\s+\d+;", f"listen 127.0.0.1:{listen};", site)
    if upstreams is not None:
        found = list(UPSTREAM_SERVER.finditer(site))
        first = found[0]
        lines = "".join(f"{first['indent']}server 127.0.0.1:{port}{first['parameters']};\n" for port in upstreams)
        site = site[: first.start()] + lines + site[found[-1].end() :]
    for where, port in places.items():
        site = re.sub(rf"\bserver\s+{re.escape(where)}(?=[\s;])", f"server 127.0.0.1:{port}", site)
    (prefix / "default.conf").write_text(site)
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temp = "\n".join(f"    {kind}_temp_path {prefix}/{kind};" for kind in kinds)
    main = prefix / "nginx.conf"
    main.write_text(
        f"daemon off;\nworker_processes 1;\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log;\n"
        f"events {{ worker_connections 256; }}\n"
        f"http {{\n    access_log {prefix}/access.log;\n{temp}\n    include {prefix}/default.conf;\n}}\n"
    )
    return main


def listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def start_nginx(config: Path, listen: int, prefix: Path) -> subprocess.Popen[bytes]:
    """nginx (installed when missing) on ``config`` in the foreground, once it listens on ``listen``."""
    ensure_installed("nginx", Path(NGINX).exists)
    log = prefix / "error.log"
    return start_proxy([NGINX, "-e", str(log), "-p", str(prefix), "-c", str(config)], listen, log)


def start_proxy(
    command: list[str], listen: int, log: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """A reverse proxy's ``command`` in the foreground, its output added to ``log``, once it
    listens on ``listen`` (it exited, or did not listen within :data:`WAIT_S`: fails with ``log``)."""
    with log.open("ab") as out:
        proxy = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + WAIT_S
    while not listening(listen):
        assert proxy.poll() is None, log.read_text()
        assert time.monotonic() < deadline, f"{command[0]} does not listen:\n{log.read_text()}"
        time.sleep(0.05)
    return proxy


def stop_proxy(proxy: subprocess.Popen[bytes]) -> None:
    proxy.terminate()
    proxy.wait(WAIT_S)
