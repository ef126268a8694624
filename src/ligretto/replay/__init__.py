"""Replays of finished rounds: the replay file (``file``), its verification against the
engine (``verify``) and the file of a stored round (``fromstore``).  Pure: it imports
only the engine (and msgspec); the terminal plays a verified replay back
(``ligretto.terminal.replayer``), the server offers the file for download."""

from ligretto.replay.file import (
    APPLIED,
    FORMAT,
    VERSION,
    End,
    ReplayDoc,
    ReplayFormatError,
    RoundRef,
    Step,
    decode,
    digest,
    encode,
    write_round,
)
from ligretto.replay.fromstore import LoggedAction, RoundLog, RoundPlayer, replay_of
from ligretto.replay.verify import Frame, ReplayError, Verified, describe, verify

__all__ = [
    "APPLIED",
    "FORMAT",
    "VERSION",
    "End",
    "Frame",
    "LoggedAction",
    "ReplayDoc",
    "ReplayError",
    "ReplayFormatError",
    "RoundLog",
    "RoundPlayer",
    "RoundRef",
    "Step",
    "Verified",
    "decode",
    "describe",
    "digest",
    "encode",
    "replay_of",
    "verify",
    "write_round",
]
