"""Names that test the display-name rules (``protocol.check_name``): emoji sequences,
joiners, flags written in tag characters, accents."""

from __future__ import annotations

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
