"""Where the machine's own programs are that the kit starts: ``redis-server`` and
PostgreSQL's (``initdb``, ``pg_ctl``), Debian's packages.  Found, or :class:`Missing` with
one line that says what to install: the stress harness stops there; the tests install the
package first (``tests/debianpackages.py``), with these finders as the test of presence."""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path

REDIS_SERVER = "/usr/bin/redis-server"


class Missing(RuntimeError):
    """A program the kit starts is not on this machine (the message is one line)."""


def redis_server() -> Path | None:
    """``redis-server`` on the ``PATH``, or Debian's; ``None``: neither."""
    found = shutil.which("redis-server") or (REDIS_SERVER if Path(REDIS_SERVER).exists() else None)
    return None if found is None else Path(found)


def postgres_bin() -> Path | None:
    """The folder of PostgreSQL's programs: Debian's newest (``/usr/lib/postgresql/N/bin``),
    else that of ``initdb`` on the ``PATH``; ``None``: no ``initdb`` at all."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return None if initdb is None else Path(os.path.realpath(initdb)).parent


def needed(found: Path | None, program: str, package: str) -> Path:
    """``found``, or :class:`Missing` naming ``program`` and the Debian ``package`` that has it."""
    if found is None:
        raise Missing(f"{program} is not on this machine: install it (Debian: apt-get install {package})")
    return found


def for_a_service() -> None:
    """What a service of its own needs besides ``ligretto serve`` (``redis-server``,
    PostgreSQL's programs): :class:`Missing` for the first that is not here."""
    needed(redis_server(), "redis-server", "redis-server")
    needed(postgres_bin(), "initdb", "postgresql")
