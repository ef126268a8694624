"""Debian's packages the tests need (Chromium, PostgreSQL, Redis), installed with apt-get
when missing, as a fresh machine of this kind has none of them: the project's own set-up
starts its real parts.  pytest-xdist workers may all ask at once, for different packages
too, and dpkg takes one apt-get at a time (another exits 100 at once): so one lock file for
every package, and apt-get told to wait for dpkg's own lock (any other apt-get on the
machine); a package that cannot be installed fails the test."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

DPKG_LOCK_S = 600
"""How long apt-get waits for dpkg's lock, held by an apt-get outside the tests."""


def ensure_installed(package: str, present: Callable[[], bool]) -> None:
    """Install ``package`` with apt-get unless ``present()`` (again after an ``apt-get
    update`` if the first try fails); asserts that it is present afterwards."""
    with open(Path(tempfile.gettempdir()) / "ligretto-apt-get.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not present():
            apt = shutil.which("apt-get")
            assert apt, f"{package} is missing and apt-get is not available to install it"
            install = [apt, "-o", f"DPkg::Lock::Timeout={DPKG_LOCK_S}", "install", "-y", "-q", package]
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            if subprocess.run(install, check=False, capture_output=True, env=env).returncode != 0:
                subprocess.run([apt, "update", "-q"], check=True, capture_output=True, env=env)
                subprocess.run(install, check=True, capture_output=True, env=env)
    assert present(), f"apt-get did not install {package}"
