"""The in-app rules page in seven languages, shared by the browser and the terminal client.

Each language is one Markdown file shipped with the package (``rulebook/<lang>.md``), all
with the same ``##`` sections in the same order.  Rule option and preset names appear in
every language exactly as :mod:`ligretto.engine.rules` spells them.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

LANGUAGES: tuple[str, ...] = ("en", "es", "pt", "it", "fr", "fi", "de")
"""Language codes (ISO 639-1) of the rules page; English first."""

NAMES: dict[str, str] = {
    "en": "English",
    "es": "Español",
    "pt": "Português",
    "it": "Italiano",
    "fr": "Français",
    "fi": "Suomi",
    "de": "Deutsch",
}
"""Each language's name in that language, for a language menu."""


class UnknownLanguageError(KeyError, ValueError):
    """A language code the rulebook does not have (a ``KeyError`` and a ``ValueError``)."""

    def __str__(self) -> str:
        # KeyError would show the message in quotes; this is a sentence.
        return str(self.args[0]) if self.args else "unknown language"


def _check(lang: str) -> str:
    if lang not in NAMES:
        raise UnknownLanguageError(f"no rulebook in language {lang!r}: languages are {', '.join(LANGUAGES)}")
    return lang


@cache
def text(lang: str) -> str:
    """The whole rules page in ``lang`` (one of :data:`LANGUAGES`) as Markdown."""
    _check(lang)
    return resources.files(__name__).joinpath(f"{lang}.md").read_text(encoding="utf-8")


def sections(lang: str) -> list[str]:
    """The ``##`` headings of the rules page in ``lang``, in order, without the ``## ``."""
    return [line[3:].strip() for line in text(lang).splitlines() if line.startswith("## ")]
