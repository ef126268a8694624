"""The malformed messages of the stress harness (``harness/stress.py``), by kind and by
the phase of the table they are sent at.

Every message here must be refused by exactly one answer (an ``error`` or a refused
``ack``) and change nothing, in the phase it is sent in: the ``wrong_phase`` kind is the
messages that are right in *other* phases (game actions where no round is playing, host
commands once the match is on, ``ready`` and the host's ``next_round`` outside the score
sheet, ``hello`` again), and
the host commands sent in the lobby, where the attacker is the host, all carry a value
the server must refuse.  No message here is a valid ``ping`` (the harness's barrier) or
a ``leave`` (valid in every phase).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from ligretto.protocol import MAX_FRAME_BYTES, MAX_MESSAGE_BYTES, Phase

Message = str | bytes
Kind = Callable[[random.Random, str], Message]
"""A kind of malformed message: one drawn from ``rng`` for a table in ``phase``."""

PHASES = tuple(Phase)
"""Every phase of a table (``protocol.Phase``), an attacker in each."""
MESSAGE_BYTES = MAX_MESSAGE_BYTES
"""The largest message the server reads: longer ones are refused (``too_large``) before
they are parsed."""
FRAME_BYTES = MAX_FRAME_BYTES
"""The largest frame the server reads (``ligretto serve``'s ``ws_max_size``): a longer
one closes the connection (1009, message too big)."""

HUGE_NUMBERS = (
    "18446744073709551616",  # 2**64
    "-18446744073709551617",
    "340282366920938463463374607431768211457",  # 2**128 + 1
    "9007199254740993",  # 2**53 + 1, past a JavaScript number's exact whole numbers
    "1e400",
    "-1e400",
    "1e-400",
    "1.7976931348623157e309",
    "123456789012345678901234567890.5e-3",
)
"""Numbers no field may take, written as JSON (Python's ``json`` writes no ``1e400``)."""


def _long_digits(rng: random.Random) -> str:
    """A whole number of hundreds to thousands of digits (the message stays in 4 KiB)."""
    return str(rng.getrandbits(rng.randrange(1000, 11000)) | 1 << 999)


def _number(rng: random.Random) -> str:
    return _long_digits(rng) if rng.random() < 0.1 else rng.choice(HUGE_NUMBERS)


def _random_bytes(rng: random.Random, phase: str) -> Message:
    return rng.randbytes(rng.randrange(1, 200))


def _random_text(rng: random.Random, phase: str) -> Message:
    return "".join(map(chr, rng.choices(range(32, 0x3000), k=rng.randrange(1, 100))))


def _wrong_shape(rng: random.Random, phase: str) -> Message:
    return rng.choice(
        [
            "[1, 2]",
            "42",
            '"act"',
            "null",
            "true",
            '{"type": 5}',
            '{"type": "act"}',
            '{"type": "hello"}',
            '{"type": "ping"}',
            '{"type": "remove_seat"}',
            '{"type": "nope"}',
            "{}",
            '{"type": "act", "id": 1, "action": {"kind": "play"}}',
            '{"type": "ping", "t": 1, "extra": 2}',
            '{"type": "act", "id": 1, "action": {"kind": "turn"}, "type": "act"',
        ]
    )


def _wrong_types(rng: random.Random, phase: str) -> Message:
    action = {"kind": "play", "source": rng.choice([7, None, [], "hand"]), "pile": rng.choice(["x", 1.5, {}])}
    return json.dumps(
        rng.choice(
            [
                {"type": "act", "id": rng.choice([[1], {}, 1.5, None]), "action": action},
                {"type": "ping", "t": rng.choice(["1", None, [], {}])},
                {"type": "hello", "v": "1", "code": 5},
                {"type": "remove_seat", "seat": rng.choice(["0", 0.5, None, [0]])},
                {"type": "set_rules", "seats": "2"},
                {"type": "react", "emote": rng.choice([1, None, ["x"]])},
                {"type": "aim", "source": rng.choice(["hand", 7, []]), "pile": rng.choice([1.5, "old", {}])},
                {"type": "share_aim", "share": rng.choice(["yes", 1, None])},
            ]
        )
    )


def _huge_numbers(rng: random.Random, phase: str) -> Message:
    """A number past any bound in every numeric field a client sends (``big``: not one
    that rounds to a small float, for the fields that take one)."""
    n = _number(rng)
    big = "1e400" if n == "1e-400" else n
    template = rng.choice(
        [
            '{"type": "act", "id": N, "action": {"kind": "turn"}}',
            '{"type": "act", "id": 1, "action": {"kind": "play", "source": "row", "position": N, "pile": N}}',
            '{"type": "act", "id": 1, "action": {"kind": "place", "source": "stack", "column": N}}',
            '{"type": "ping", "t": BIG}',
            '{"type": "remove_seat", "seat": N}',
            '{"type": "set_rules", "seats": N}',
            '{"type": "set_rules", "grace_s": BIG}',
            '{"type": "set_rules", "options": {"match_end": "rounds:DIGITS"}}',
            '{"type": "set_rules", "options": {"row_size": N}}',
            '{"type": "hello", "v": N, "code": "x"}',
            '{"type": "aim", "source": "row", "position": N, "pile": N}',
        ]
    )
    return template.replace("BIG", big).replace("DIGITS", n.lstrip("-")).replace("N", n)


def _deep_nesting(rng: random.Random, phase: str) -> Message:
    """Arrays or objects nested as deep as a message may be, and deeper, up to the largest
    frame the server reads (past 4 KiB: refused unparsed)."""
    inside = rng.random() < 0.6
    limit = MESSAGE_BYTES if inside else FRAME_BYTES
    head = '{"type": "act", "id": 1, "action": '
    if rng.random() < 0.5:
        opening, closing = "[", "]"
    else:
        opening, closing = '{"a":', "}"
    room = (limit - len(head) - 1) // (len(opening) + len(closing))
    depth = rng.randrange(max(1, room // 2) if inside else MESSAGE_BYTES // 2, room)
    return head + opening * depth + closing * depth + "}"


def _oversize(rng: random.Random, phase: str) -> Message:
    """Past the message limit, within the frame limit: refused unparsed, the connection kept."""
    pad = "x" * rng.randrange(MESSAGE_BYTES, FRAME_BYTES - 100)
    return '{"type": "act", "id": 1, "action": {"kind": "turn"}, "pad": "' + pad + '"}'


def _no_such_place(rng: random.Random, phase: str) -> Message:
    action = rng.choice(
        [
            {"kind": "play", "source": "row", "position": rng.randrange(5, 1000), "pile": None},
            {"kind": "play", "source": "stack", "pile": rng.randrange(40, 10**6)},
            {"kind": "play", "source": "row", "position": -rng.randrange(1, 100), "pile": -rng.randrange(2, 100)},
            {"kind": "place", "source": "stack", "column": rng.randrange(5, 1000)},
            {"kind": "play", "source": "discard", "pile": None, "card": rng.choice(["z9", "r11", "", "r5x"])},
            {"kind": "withdraw"},
        ]
    )
    return json.dumps({"type": "act", "id": rng.randrange(10**6), "action": action})


# --- the wrong phase ------------------------------------------------------------------------

_ACTIONS: list[dict[str, object]] = [
    {"kind": "turn"},
    {"kind": "vote"},
    {"kind": "withdraw"},
    {"kind": "play", "source": "row", "position": 0, "pile": None},
    {"kind": "play", "source": "stack", "pile": None},
    {"kind": "place", "source": "stack", "column": 0},
]
"""Game actions as a player sends them in a round: right only while one is being played."""
_HOST: list[dict[str, object]] = [
    {"type": "start"},
    {"type": "add_bot", "strategy": "smart", "level": "machine"},
    {"type": "set_rules", "preset": "classic", "options": {}},
    {"type": "set_rules", "seats": 3, "grace_s": 10},
    {"type": "remove_seat", "seat": 1},
]
"""The host's commands as sent in the lobby: right only there (``start``: and once over)."""
_LOBBY_HOST: list[dict[str, object]] = [
    {"type": "add_bot", "strategy": "greedy", "level": "casual"},  # every seat is taken
    {"type": "add_bot", "strategy": "nobody", "level": "casual"},
    {"type": "add_bot", "strategy": "smart", "level": "godlike"},
    {"type": "remove_seat", "seat": 0},  # the host themselves
    {"type": "remove_seat", "seat": 7},
    {"type": "remove_seat", "seat": -1},
    {"type": "set_rules", "preset": "nonsense"},
    {"type": "set_rules", "options": {"match_end": "rounds:99999999999999999999"}},
    {"type": "set_rules", "options": {"match_end": "target:-5"}},
    {"type": "set_rules", "options": {"no_such_option": True}},
    {"type": "set_rules", "options": {"row_size": 99}},
    {"type": "set_rules", "seats": 1},
    {"type": "set_rules", "seats": 13},
    {"type": "set_rules", "grace_s": -1},
    {"type": "set_rules", "grace_s": 1e12},
    {"type": "set_rules", "ready_s": 1},
    {"type": "set_rules", "ready_s": 1e6},
    {"type": "react", "emote": "not an emote"},
]
"""The host's commands in the lobby, each with a value the server refuses."""


def _wrong_phase(rng: random.Random, phase: str) -> Message:
    """A message right in another phase than ``phase``, or (the lobby's host commands) one
    with a bad value."""
    act: dict[str, object] = {"type": "act", "id": rng.randrange(10**6), "action": rng.choice(_ACTIONS)}
    hello: dict[str, object] = {"type": "hello", "v": 1, "code": "ABCDEFGH", "name": "again"}
    ready: dict[str, object] = {"type": "ready"}
    next_round: dict[str, object] = {"type": "next_round"}  # the host's, on the score sheet only
    choices: list[dict[str, object]] = [hello]
    if phase == "lobby":
        choices += [act, ready, next_round, rng.choice(_LOBBY_HOST)]
    elif phase == "countdown":
        choices += [act, ready, next_round, rng.choice(_HOST)]
    elif phase == "playing":
        choices += [ready, next_round, rng.choice(_HOST)]
    elif phase == "scoring":
        choices += [act, rng.choice(_HOST)]
    else:  # over: a rematch may start
        choices += [act, ready, next_round, rng.choice(_HOST[1:])]
    return json.dumps(rng.choice(choices))


KINDS: dict[str, Kind] = {
    "random_bytes": _random_bytes,
    "random_text": _random_text,
    "wrong_shape": _wrong_shape,
    "wrong_types": _wrong_types,
    "huge_numbers": _huge_numbers,
    "deep_nesting": _deep_nesting,
    "oversize": _oversize,
    "no_such_place": _no_such_place,
    "wrong_phase": _wrong_phase,
}
"""Every kind of malformed message sent on a seated connection, each answered by one
``error`` or one refused ``ack``."""
