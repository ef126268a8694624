"""Moved to :mod:`ligretto.protocol`; kept only until ``server/table.py`` is rewired."""

from ligretto.protocol import *  # noqa: F403
