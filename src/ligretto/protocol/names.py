"""Display names: what a person may be called at a table (docs/protocol.md, Limits)."""

from __future__ import annotations

import re
import unicodedata

from ligretto.protocol.errors import ProtocolError

MAX_NAME_LENGTH = 24
"""Characters of a display name as a person counts them (:func:`visible_length`)."""
MAX_NAME_CODE_POINTS = 64
"""The raw length of a display name: accents, emoji sequences and joiners add code points.
A subdivision flag takes 7, so a name of 24 characters may hold up to 6 of them; the cap
also keeps stacks of combining marks short.  Every name under it fits the browser's name
field (64 code points are at most 128 UTF-16 units, ``NAME_INPUT_MAX`` in storage.js)."""
JOINERS = frozenset("\u200c\u200d")
"""ZERO WIDTH NON-JOINER (Persian, Indic scripts) and ZERO WIDTH JOINER (emoji sequences
such as the family or the rainbow flag): format characters a name may hold between two
characters."""
TAG_SEQUENCE = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
"""An emoji tag sequence: a subdivision flag such as England's, Scotland's or Wales's is
WAVING BLACK FLAG, tag characters spelling the region (``gbeng``), then CANCEL TAG.  Tag
characters (U+E0000-U+E007F, format characters) are allowed in such a sequence only."""


_REFUSED = {
    "Cc": "control characters",
    "Cf": "invisible formatting characters",
    "Cs": "unpaired surrogates",
    "Co": "unassigned or private-use characters",
    "Cn": "unassigned or private-use characters",
}
"""The Unicode categories (C*) a name may not hold, joiners aside, and what to call them."""


def check_name(name: str | None) -> str:
    """A display name, trimmed: 1-24 characters as a person counts them, at most 64 code
    points, no control or format characters except a joiner between two characters and
    the tag characters of a subdivision flag (so no name is invisible, and none reads as
    another through a right-to-left override)."""
    if name is None or not name.strip():
        raise ProtocolError("bad_name", "a display name is required")
    name = name.strip()
    if len(name) > MAX_NAME_CODE_POINTS:
        raise ProtocolError(
            "bad_name", f"names are limited to {MAX_NAME_CODE_POINTS} code points (accents and emoji count several)"
        )
    flag_tags = {i for match in TAG_SEQUENCE.finditer(name) for i in range(match.start() + 1, match.end())}
    for index, ch in enumerate(name):
        if ch in JOINERS:
            if not _joins(name, index):
                raise ProtocolError("bad_name", "a zero-width joiner or non-joiner must stand between two characters")
        elif _is_tag(ch):
            if index not in flag_tags:
                raise ProtocolError("bad_name", "tag characters may only spell a flag such as England's")
        elif (kind := _REFUSED.get(unicodedata.category(ch))) is not None:
            raise ProtocolError("bad_name", f"names may not contain {kind}")
    visible = visible_length(name)
    if visible == 0:
        raise ProtocolError("bad_name", "a display name needs a visible character")
    if visible > MAX_NAME_LENGTH:
        raise ProtocolError("bad_name", f"names are limited to {MAX_NAME_LENGTH} characters")
    return name


def visible_length(name: str) -> int:
    """Roughly the characters a person sees: code points other than combining marks,
    variation selectors (U+FE00-U+FE0F), joiners and tag characters (a subdivision flag
    counts one, its black flag)."""
    return sum(1 for ch in name if not _invisible(ch))


def _invisible(ch: str) -> bool:
    return ch in JOINERS or "\ufe00" <= ch <= "\ufe0f" or _is_tag(ch) or unicodedata.category(ch).startswith("M")


def _is_tag(ch: str) -> bool:
    """A character of the Tags block (U+E0000-U+E007F): LANGUAGE TAG, the tag letters and CANCEL TAG."""
    return "\U000e0000" <= ch <= "\U000e007f"


def _joins(name: str, index: int) -> bool:
    """The joiner at ``index`` stands between two characters: not at an end, not beside a
    space or another joiner."""
    if not 0 < index < len(name) - 1:
        return False
    return all(name[i] not in JOINERS and not name[i].isspace() for i in (index - 1, index + 1))
