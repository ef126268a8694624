"""Display names: what ``protocol.check_name`` accepts and refuses.

A name is 1-24 characters as a person counts them (combining marks, variation selectors,
joiners and tag characters do not count), at most 64 code points.  Control characters and
invisible formatting characters are refused (a right-to-left override could make a name
read as another), except ZERO WIDTH JOINER (emoji such as the family or the rainbow flag)
and ZERO WIDTH NON-JOINER (Persian, Indic scripts) between two characters, and the tag
characters of a subdivision flag (England's: a black flag, the tags "gbeng", CANCEL TAG).
"""

from __future__ import annotations

import pytest

from ligretto.protocol import MAX_NAME_CODE_POINTS, MAX_NAME_LENGTH, ProtocolError, check_name, visible_length
from sample_names import (
    BLACK_FLAG,
    CANCEL_TAG,
    ENGLAND,
    FAMILY,
    HEART,
    HINDI,
    PERSIAN,
    RAINBOW_FLAG,
    SCOTLAND,
    WALES,
    ZWJ,
    ZWNJ,
    tags,
)


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
