"""The operator's files (``Dockerfile``, ``deploy/``, docs/deploy.md's commands) read, and
what they run made plain processes on 127.0.0.1 (this machine has no container engine and
no systemd as PID 1), for ``tests/deploy/``: a container's or unit's command runs with
what it would name (``app1:8000``, ``postgres``, ``redis``, ``/data``) mapped to this
machine by one function, :func:`localize`; the postgres image's first start by
:func:`first_start`; a command docs/deploy.md runs in the ``postgres`` container by
:func:`in_postgres`.  Everything else is the files' own text, so a broken command or
config fails the tests."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from pgserver import PgServer
from realserver import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
WAIT_S = 10.0
PROGRAMS = {"ligretto": [sys.executable, "-m", "ligretto"], "python": [sys.executable]}
"""A program of a container or unit, as it runs here (by its file name)."""
DEFAULT_PORTS = {"http": 80, "redis": 6379, "postgresql": 5432}
URL = re.compile(r"(?P<scheme>[a-z]+)://(?P<user>[^@/\s'\"]+@)?(?P<host>[A-Za-z0-9.-]+)(?::(?P<port>\d+))?")


# --- reading the files -------------------------------------------------------------------


def dockerfile_stages(text: str) -> list[list[tuple[str, str]]]:
    """The Dockerfile's stages, each its instructions as (INSTRUCTION, arguments), lines
    continued with a backslash joined, comments dropped."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    stages: list[list[tuple[str, str]]] = []
    for line in joined.splitlines():
        if not line.strip():
            continue
        instruction, _, arguments = line.strip().partition(" ")
        if instruction.upper() == "FROM":
            stages.append([])
        stages[-1].append((instruction.upper(), arguments.strip()))
    return stages


def exec_form(arguments: str) -> list[str]:
    """An instruction's exec form (``["ligretto", "serve"]``) as its words."""
    words = json.loads(arguments)
    assert isinstance(words, list) and all(isinstance(word, str) for word in words), arguments
    return words


def final_stage() -> dict[str, str]:
    """The image's own instructions (the last stage), by name (the last of each)."""
    return dict(dockerfile_stages((ROOT / "Dockerfile").read_text())[-1])


def healthcheck_command() -> list[str]:
    """The words of the image's ``HEALTHCHECK ... CMD [...]``."""
    return exec_form(final_stage()["HEALTHCHECK"].split(" CMD ", 1)[1])


def unit_file(path: Path) -> dict[str, dict[str, list[str]]]:
    """A systemd unit's settings: section -> key -> values (a key may be given again)."""
    sections: dict[str, dict[str, list[str]]] = {}
    section: dict[str, list[str]] = {}
    for text in path.read_text().splitlines():
        line = text.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        section.setdefault(key.strip(), []).append(value.strip())
    return sections


def env_file(name: str) -> dict[str, str]:
    """The variables of the env file ``name`` as its shipped example holds them."""
    example = DEPLOY / f"{Path(name).name}.example"
    found = {}
    for line in example.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            found[key.strip()] = value.strip()
    return found


def compose() -> dict[str, Any]:
    with (DEPLOY / "compose.yaml").open() as file:
        document: dict[str, Any] = yaml.safe_load(file)
    return document


# --- from a container to this machine ------------------------------------------------------


def localize(words: list[str], places: dict[str, int], port: int, folder: Path) -> list[str]:
    """A container's (or unit's) command as a plain process on 127.0.0.1: its program as
    this interpreter runs it (:data:`PROGRAMS`), ``--host`` 127.0.0.1, ``--port`` ``port``,
    every URL's ``host:port`` found in ``places`` (``"app1:8000"``, ``"postgres:5432"``)
    its port here on 127.0.0.1, and ``/data/`` (the image's volume) ``folder``."""

    def place(match: re.Match[str]) -> str:
        scheme, user, host = match["scheme"], match["user"] or "", match["host"]
        where = f"{host}:{match['port'] or DEFAULT_PORTS.get(scheme, 0)}"
        return f"{scheme}://{user}127.0.0.1:{places[where]}" if where in places else match[0]

    program, *arguments = words
    command = list(PROGRAMS.get(Path(program).name, [program]))
    for before, word in zip([None, *arguments], arguments, strict=False):
        if before == "--host":
            command.append("127.0.0.1")
        elif before == "--port":
            command.append(str(port))
        else:
            command.append(URL.sub(place, word.replace("/data/", f"{folder}/")))
    return command


# --- processes ---------------------------------------------------------------------------


class Plain(ServerProcess):
    """A container's or unit's command as a plain process on ``port`` (ready: ``/healthz``)."""

    def __init__(self, command: list[str], port: int, log: Path, env: dict[str, str]) -> None:
        super().__init__("", log)
        self.command = command
        self.port = port
        self.env = env

    def launch(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT, env=self.env)

    def stopped_cleanly(self) -> None:
        """Stop it (SIGTERM) and fail if its log holds a traceback."""
        self.stop()
        assert "Traceback" not in self.log_text(), self.log_text()


def compose_app(name: str, places: dict[str, int], folder: Path) -> Plain:
    """The compose file's app ``name`` as a plain process (not started): the image's entry
    point followed by the service's ``command``, localized (``places``: ``"app1:8000"``,
    ``"postgres:5432"``, ``"redis:6379"`` to ports here), with its env file's variables;
    its log ``folder/NAME.log``."""
    service = compose()["services"][name]
    port = places[f"{name}:8000"]
    command = localize(exec_form(final_stage()["ENTRYPOINT"]) + service["command"], places, port, folder)
    return Plain(command, port, folder / f"{name}.log", {**os.environ, **service_env(service)})


# --- the postgres container -----------------------------------------------------------------

INITDB_D = "/docker-entrypoint-initdb.d/"
"""Where the postgres image finds what it runs at its first start."""
IN_POSTGRES = "docker compose exec -T postgres "
"""How docs/deploy.md runs a command in the ``postgres`` container."""
EXEC = 'exec_t() { cat | "$@" | cat; }; set -o pipefail; '
"""``docker compose exec -T`` as bash stands in for it: the command's input and output are
pipes to the operator's shell (its redirections), as docker's are, and its status is the
command's."""
DOCS = ROOT / "docs" / "deploy.md"


def service_env(service: dict[str, Any]) -> dict[str, str]:
    """The variables of a compose service's container: its env files' (as the shipped
    examples hold them) and its ``environment``."""
    names = service["env_file"]
    found: dict[str, str] = {}
    for name in [names] if isinstance(names, str) else names:
        found.update(env_file(name))
    return found | service.get("environment", {})


def server_env(pg: PgServer, service: dict[str, Any]) -> dict[str, str]:
    """The environment of a program of the ``postgres`` container, here: the container's
    variables, the server's programs first on the ``PATH``, and the server's address (in
    the container, its socket) for libpq (``PGHOST``, ``PGPORT``)."""
    path = f"{pg.bin}:{os.environ['PATH']}"
    return {**os.environ, **service_env(service), "PATH": path, "PGHOST": "127.0.0.1", "PGPORT": str(pg.port)}


def first_start(service: dict[str, Any], pg: PgServer) -> None:
    """What the postgres image does at its first start (an empty volume), on ``pg``: each
    ``*.sql`` file the service mounts in ``/docker-entrypoint-initdb.d``, in name order,
    run by psql as the image runs it: as the superuser ``POSTGRES_USER`` (default
    ``postgres``) in the database ``POSTGRES_DB`` (default the user's name), with the
    container's variables.  (``POSTGRES_PASSWORD``, the superuser's password the image
    gives initdb, is not set: the tests' server trusts its superuser.)"""
    env = server_env(pg, service)
    user = env.get("POSTGRES_USER", "postgres")
    database = env.get("POSTGRES_DB", user)
    mounted = {}
    for volume in service["volumes"]:
        source, target = volume.split(":")[:2]
        if target.startswith(INITDB_D) and target.endswith(".sql"):
            mounted[target] = DEPLOY / source
    assert mounted, f"the postgres service mounts nothing in {INITDB_D}"
    for _, script in sorted(mounted.items()):
        psql = ["psql", "-v", "ON_ERROR_STOP=1", "--username", user, "--no-password", "--no-psqlrc"]
        ran = subprocess.run(
            [*psql, "--dbname", database, "-f", str(script)], env=env, capture_output=True, text=True, check=False
        )
        assert ran.returncode == 0, (script, ran.stdout, ran.stderr)


def docs_commands(program: str) -> list[str]:
    """The lines of docs/deploy.md's ``sh`` blocks that run ``program`` in the ``postgres``
    container (``docker compose exec -T postgres PROGRAM …``)."""
    found, block = [], False
    for line in DOCS.read_text().splitlines():
        if line.startswith("```"):
            block = line == "```sh"
        elif block and line.startswith(f"{IN_POSTGRES}{program} "):
            found.append(line)
    return found


def in_postgres(
    command: str, pg: PgServer, service: dict[str, Any], folder: Path, *, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run one of docs/deploy.md's lines that run a command in the ``postgres`` container
    (``docs_commands``) here: by bash in ``folder`` (where its redirections read and
    write: the operator's shell), the container's command with pipes for its input and
    output (:data:`EXEC`) and the container's environment (:func:`server_env`);
    ``check``: assert that it succeeded."""
    script = EXEC + command.replace(IN_POSTGRES, "exec_t ", 1)
    env = server_env(pg, service)
    ran = subprocess.run(
        ["bash", "-c", script],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0 or not check, (command, ran.stdout, ran.stderr)
    return ran
