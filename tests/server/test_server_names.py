"""Display names: what ``protocol.check_name`` accepts and refuses, and names with emoji
sequences and joiners reaching the other people at the table unchanged over real
WebSockets.

A name is 1-24 characters as a person counts them (combining marks, variation selectors,
joiners and tag characters do not count), at most 64 code points.  Control characters and
invisible formatting characters are refused (a right-to-left override could make a name
read as another), except ZERO WIDTH JOINER (emoji such as the family or the rainbow flag)
and ZERO WIDTH NON-JOINER (Persian, Indic scripts) between two characters, and the tag
characters of a subdivision flag (England's: a black flag, the tags "gbeng", CANCEL TAG).
"""

from __future__ import annotations

from typing import Any

import pytest

from ligretto.protocol import MAX_NAME_CODE_POINTS, MAX_NAME_LENGTH, ProtocolError, check_name, visible_length

ZWJ, ZWNJ = "\u200d", "\u200c"
FAMILY = f"\U0001f469{ZWJ}\U0001f469{ZWJ}\U0001f467"  # 👩‍👩‍👧
RAINBOW_FLAG = f"\U0001f3f3\ufe0f{ZWJ}\U0001f308"  # 🏳️‍🌈
PERSIAN = f"\u0645\u06cc{ZWNJ}\u062e\u0648\u0627\u0647\u0645"  # می‌خواهم
HINDI = f"\u0915\u094d{ZWNJ}\u0937"  # क्‌ष (virama, then a non-joiner)
HEART = "\u2764\ufe0f"  # ❤️: a heart and the variation selector that asks for the emoji
BLACK_FLAG, CANCEL_TAG = "\U0001f3f4", "\U000e007f"


def tags(letters: str) -> str:
    """``letters`` spelled in tag characters (U+E0020-U+E007E mirror ASCII)."""
    return "".join(chr(0xE0000 + ord(letter)) for letter in letters)


ENGLAND = BLACK_FLAG + tags("gbeng") + CANCEL_TAG  # 🏴󠁧󠁢󠁥󠁮󠁧󠁿: 7 code points, 1 character
SCOTLAND = BLACK_FLAG + tags("gbsct") + CANCEL_TAG  # 🏴󠁧󠁢󠁳󠁣󠁴󠁿
WALES = BLACK_FLAG + tags("gbwls") + CANCEL_TAG  # 🏴󠁧󠁢󠁷󠁬󠁳󠁿


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
        (ENGLAND, 1),
        (SCOTLAND, 1),
        (WALES, 1),
        (BLACK_FLAG, 1),  # the black flag alone is an ordinary emoji
        (f"Ann {ENGLAND}", 5),
        (f"{SCOTLAND}Ann{WALES}", 5),
        (f"{ENGLAND}{ZWJ}{SCOTLAND}", 2),
        # A whole name of 24 characters with as many flags as the 64 code points allow.
        (ENGLAND + SCOTLAND + WALES + ENGLAND + SCOTLAND + WALES + "x" * 18, 24),
    ],
)
def test_names_with_emoji_sequences_joiners_flags_and_accents_are_accepted(name: str, visible: int) -> None:
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
        (ENGLAND * 7 + "x" * 17, f"{MAX_NAME_CODE_POINTS} code points"),  # 24 characters, 66 code points
        (f"Ann{tags('gbeng')}", "tag"),  # stray tag characters
        (tags("gbeng") + CANCEL_TAG, "tag"),  # a tag sequence without the black flag
        (f"Ann\U0001f3f3{tags('gbeng')}{CANCEL_TAG}", "tag"),  # after the white flag
        (f"{BLACK_FLAG}{tags('gbeng')}", "tag"),  # no CANCEL TAG
        (f"{BLACK_FLAG}{tags('gbeng')} Ann", "tag"),
        (f"{BLACK_FLAG}{CANCEL_TAG}", "tag"),  # no tag between
        (f"Ann{CANCEL_TAG}", "tag"),
        (f"{BLACK_FLAG} {tags('gbeng')}{CANCEL_TAG}", "tag"),  # not right after the flag
        (f"{BLACK_FLAG}\U000e0001{tags('en')}{CANCEL_TAG}", "tag"),  # LANGUAGE TAG
        (f"{ENGLAND}{CANCEL_TAG}", "tag"),  # a second CANCEL TAG
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
        names = [FAMILY, PERSIAN, HEART * MAX_NAME_LENGTH, f"Ann {ENGLAND}"]
        clients = [await server.client(f"player{i}").join(code, name) for i, name in enumerate(names)]
        watcher = await server.client("watcher").watch(code)
        for client in (*clients, watcher):
            await client.wait_for(lambda m: m["type"] == "table" and m["seats"][3] is not None)
            seats = client.all("table")[-1]["seats"]
            assert [seat["name"] for seat in seats] == names, client.label
        status, summary = server.http("GET", f"/api/tables/{code}")
        assert status == 200 and summary["host"] == FAMILY

        for name in ("Ann\u202eevil", ZWJ * 2, HEART * (MAX_NAME_LENGTH + 1), f"Ann{tags('gbeng')}"):
            refused = server.client("refused")
            await refused.connect()
            answer = await refused.hello(code, name)
            assert answer["type"] == "error" and answer["code"] == "bad_name", answer
            await refused.close()
        status, summary = server.http("GET", f"/api/tables/{code}")
        assert summary["taken"] == 4, "a refused name took a seat"
        for client in (*clients, watcher):
            await client.close()

    arun(scenario())
