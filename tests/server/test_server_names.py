"""Display names: what ``protocol.check_name`` accepts and refuses, and names with emoji
sequences and joiners reaching the other people at the table unchanged over real
WebSockets.

A name is 1-24 characters as a person counts them (combining marks, variation selectors
and joiners do not count), at most 64 code points.  Control characters and invisible
formatting characters are refused (a right-to-left override could make a name read as
another), except ZERO WIDTH JOINER (emoji such as the family or the rainbow flag) and
ZERO WIDTH NON-JOINER (Persian, Indic scripts) between two characters.
"""

from __future__ import annotations

from typing import Any

import pytest

from ligretto.server.protocol import MAX_NAME_CODE_POINTS, MAX_NAME_LENGTH, ProtocolError, check_name, visible_length

ZWJ, ZWNJ = "\u200d", "\u200c"
FAMILY = f"\U0001f469{ZWJ}\U0001f469{ZWJ}\U0001f467"  # 👩‍👩‍👧
RAINBOW_FLAG = f"\U0001f3f3\ufe0f{ZWJ}\U0001f308"  # 🏳️‍🌈
PERSIAN = f"\u0645\u06cc{ZWNJ}\u062e\u0648\u0627\u0647\u0645"  # می‌خواهم
HINDI = f"\u0915\u094d{ZWNJ}\u0937"  # क्‌ष (virama, then a non-joiner)
HEART = "\u2764\ufe0f"  # ❤️: a heart and the variation selector that asks for the emoji


@pytest.mark.parametrize(
    ("name", "visible"),
    [
        ("Ann", 3),
        (FAMILY, 3),
        (f"Mum {FAMILY}", 7),
        (RAINBOW_FLAG, 2),
        (PERSIAN, 7),
        (HINDI, 2),
        (HEART * MAX_NAME_LENGTH, 24),
        ("e\u0301" * MAX_NAME_LENGTH, 24),  # é written as e + a combining accent
        ("x" * MAX_NAME_LENGTH, 24),
        ("Ann\u00a0Lee", 7),
    ],
)
def test_names_with_emoji_sequences_joiners_and_accents_are_accepted(name: str, visible: int) -> None:
    assert check_name(f"  {name} ") == name
    assert visible_length(name) == visible


@pytest.mark.parametrize(
    ("name", "says"),
    [
        (None, "required"),
        ("   ", "required"),
        ("Ann\u202eevil", "formatting"),  # RIGHT-TO-LEFT OVERRIDE: "Ann" + "live" reversed
        ("Ann\u2066x\u2069", "formatting"),  # bidi isolates
        ("Ann\u200b", "formatting"),  # ZERO WIDTH SPACE
        ("\ufeffAnn", "formatting"),  # BYTE ORDER MARK
        ("An\x07n", "control"),
        ("Ann\nLee", "control"),
        ("Ann\ue000", "private-use"),
        (ZWJ, "joiner"),
        (ZWJ * 3, "joiner"),
        (ZWNJ + ZWJ, "joiner"),
        (f"{ZWJ}Ann", "joiner"),
        (f"Ann{ZWNJ}", "joiner"),
        (f"An{ZWJ}{ZWJ}n", "joiner"),
        (f"An{ZWJ}{ZWNJ}n", "joiner"),
        (f"Ann {ZWJ} Lee", "joiner"),
        ("\u0301\u0301", "visible"),  # combining marks alone
        ("\ufe0f", "visible"),
        (HEART * (MAX_NAME_LENGTH + 1), f"{MAX_NAME_LENGTH} characters"),
        ("x" * (MAX_NAME_LENGTH + 1), f"{MAX_NAME_LENGTH} characters"),
        ("e" + "\u0301" * MAX_NAME_CODE_POINTS, f"{MAX_NAME_CODE_POINTS} code points"),
    ],
)
def test_invisible_control_and_overlong_names_are_refused(name: str | None, says: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        check_name(name)
    assert refused.value.code == "bad_name"
    assert says in refused.value.message, refused.value.message


def test_names_with_joiners_reach_everyone_unchanged(server: Any, arun: Any) -> None:
    async def scenario() -> None:
        code = server.create_table(4)
        names = [FAMILY, PERSIAN, HEART * MAX_NAME_LENGTH]
        clients = [await server.client(f"player{i}").join(code, name) for i, name in enumerate(names)]
        watcher = await server.client("watcher").watch(code)
        for client in (*clients, watcher):
            await client.wait_for(lambda m: m["type"] == "table" and m["seats"][2] is not None)
            seats = client.all("table")[-1]["seats"]
            assert [seat["name"] for seat in seats[:3]] == names, client.label
        status, summary = server.http("GET", f"/api/tables/{code}")
        assert status == 200 and summary["host"] == FAMILY

        for name in ("Ann\u202eevil", ZWJ * 2, HEART * (MAX_NAME_LENGTH + 1)):
            refused = server.client("refused")
            await refused.connect()
            answer = await refused.hello(code, name)
            assert answer["type"] == "error" and answer["code"] == "bad_name", answer
            await refused.close()
        status, summary = server.http("GET", f"/api/tables/{code}")
        assert summary["taken"] == 3, "a refused name took a seat"
        for client in (*clients, watcher):
            await client.close()

    arun(scenario())
