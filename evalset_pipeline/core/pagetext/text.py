"""Text primitives, each defined once: how printed text is normalised before it is compared, and
what counts as Hangul.

Every reader of a page (the page reader, the table reader, the evidence judge, the metadata
extractor, the sample corpus) used to carry its own copy, and the copies had drifted: two Hangul
ranges, invisible characters dropped by one normaliser and kept by the others.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "HANGUL_LETTERS",
    "HANGUL_SYLLABLES",
    "INVISIBLE",
    "clean_text",
    "figure_text",
    "has_hangul",
    "is_hangul_syllable",
]

# Regex character-class bodies (use inside [...]): the precomposed syllables 가..힣, and those plus
# the jamo (ㄱ, ㅏ; conjoining and compatibility), which a text layer sometimes prints apart.
HANGUL_SYLLABLES = "\uac00-\ud7a3"
HANGUL_LETTERS = HANGUL_SYLLABLES + "\u1100-\u11ff\u3130-\u318f"

# Characters a PDF's text layer carries but a reader never sees: soft hyphen, zero-width
# spaces and joiners, direction marks and embeddings, word joiner, byte-order mark.
INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_SPACE = re.compile(r"\s+")


def clean_text(text: str, *, casefold: bool = False) -> str:
    """Text as a reader compares it: NFKC (full-width forms, ligatures), invisible characters
    dropped, each run of whitespace one space, stripped; casefolded when asked."""
    out = _SPACE.sub(" ", INVISIBLE.sub("", unicodedata.normalize("NFKC", text))).strip()
    return out.casefold() if casefold else out


def figure_text(text: str | None) -> str:
    """Text whose figures are read as printed: NFKC, the Unicode minus as "-"; lines and spacing
    kept (a figure's line is where its row is)."""
    return unicodedata.normalize("NFKC", text or "").replace("\u2212", "-")


def is_hangul_syllable(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


def has_hangul(text: str) -> bool:
    """Does the text hold a Hangul syllable (가..힣)?"""
    return any(is_hangul_syllable(ch) for ch in text)
