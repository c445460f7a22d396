"""Text primitives, each defined once: how printed text is normalised before it is compared, what
counts as Hangul, and how a printed number is read (sign, parentheses, thousands separators).

Every reader of a page (the page reader, the table reader, the evidence judge, the metadata
extractor, the sample corpus) used to carry its own copy, and the copies had drifted: two Hangul
ranges, invisible characters dropped by one normaliser and kept by the others.
"""

from __future__ import annotations

import functools
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
    "joined_letter_spacing",
    "locale_decimals",
    "locale_number",
    "number_value",
    "parse_number",
]

# Regex character-class bodies (use inside [...]): the precomposed syllables 가..힣, and those plus
# the jamo (ㄱ, ㅏ; conjoining and compatibility), which a text layer sometimes prints apart.
HANGUL_SYLLABLES = "\uac00-\ud7a3"
HANGUL_LETTERS = HANGUL_SYLLABLES + "\u1100-\u11ff\u3130-\u318f"

# Characters a PDF's text layer carries but a reader never sees: soft hyphen, zero-width
# spaces and joiners, direction marks and embeddings, word joiner, byte-order mark.
INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_SPACE = re.compile(r"\s+")


# Korean pages print the list dot between nouns as the compatibility letter "ㆍ" (U+318D), which
# NFKC turns into a conjoining vowel (U+119E) that no reader types: both are the middle dot.
_ARAEA = str.maketrans({"\u318d": "\u00b7", "\u119e": "\u00b7"})


@functools.lru_cache(maxsize=1 << 16)
def clean_text(text: str, *, casefold: bool = False) -> str:
    """Text as a reader compares it: NFKC (full-width forms, ligatures), invisible characters
    dropped, each run of whitespace one space, stripped, the Korean list dot "ㆍ" as "·";
    casefolded when asked. (Cached: a filing's words and labels repeat page after page.)"""
    out = unicodedata.normalize("NFKC", text).translate(_ARAEA)
    out = _SPACE.sub(" ", INVISIBLE.sub("", out)).strip()
    return out.casefold() if casefold else out


def figure_text(text: str | None) -> str:
    """Text whose figures are read as printed: NFKC, the Unicode minus as "-"; lines and spacing
    kept (a figure's line is where its row is)."""
    return unicodedata.normalize("NFKC", text or "").replace("\u2212", "-")


def is_hangul_syllable(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


_HANGUL_SYLLABLE = re.compile(f"[{HANGUL_SYLLABLES}]")


def has_hangul(text: str) -> bool:
    """Does the text hold a Hangul syllable (가..힣)? (A regex search: asked of whole pages, a
    character loop in Python cost a second per few hundred English pages.)"""
    return _HANGUL_SYLLABLE.search(text) is not None


_LETTER_SPACED = re.compile(f"(?:[{HANGUL_SYLLABLES}] )+[{HANGUL_SYLLABLES}]")


def joined_letter_spacing(text: str) -> str:
    """A Korean label justified over its cell ("기 초", "합 계", "매 출 액") as the one word it
    is ("기초"): only a text made wholly of single syllables apart, never words that happen to be
    short ("및 기타" keeps its space)."""
    t = text.strip()
    return t.replace(" ", "") if _LETTER_SPACED.fullmatch(t) else text


# --- numbers --------------------------------------------------------------------------------------

_PRINTED_NUMBER = re.compile(
    r"^(?P<sign>[+\-−])?(?P<paren>\()?(?:US\$|\$|₩|€)?\s*(?P<num>\d[\d,]*(?:\.\d+)?)\)?\s*(?P<suffix>%|[^\d\s]{0,12})?$"
)


def number_value(digits: str) -> float:
    """The value of digits as a figure pattern matched them, comma thousands: "1,234.5" -> 1234.5.
    Raises ValueError on anything else, as float() does."""
    return float(digits.replace(",", ""))


def parse_number(text: str) -> float | None:
    """A printed figure, sign and parentheses read: '1,234.5' -> 1234.5, '+8.3%' -> 8.3,
    '(12.0)' -> -12.0, '12,345억원' -> 12345.0; else None."""
    m = _PRINTED_NUMBER.match(unicodedata.normalize("NFKC", text.strip()))
    if not m:
        return None
    try:
        value = number_value(m["num"])
    except ValueError:
        return None
    if m["sign"] in ("-", "−") or m["paren"]:
        value = -value
    return value


def locale_number(num: str) -> float | None:
    """Digits in any locale's spelling (an answer someone typed): the last of '.'/',' is the decimal
    mark when both occur; a lone ',' or '.' followed by exactly three digits (possibly repeated) is
    a thousands separator. 1.234,56 / 1,234.56 / 1234.56 are one amount."""
    num = num.replace(" ", "").replace("'", "")
    if "," in num and "." in num:
        decimal = "," if num.rfind(",") > num.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        num = num.replace(thousands, "").replace(decimal, ".")
    elif "," in num:
        parts = num.split(",")
        num = num.replace(",", "") if all(len(p) == 3 for p in parts[1:]) else num.replace(",", ".")
    elif num.count(".") > 1:
        num = num.replace(".", "")
    try:
        return float(num)
    except ValueError:
        return None


def locale_decimals(num: str) -> int:
    """Digits after the decimal mark, read as `locale_number` reads the mark."""
    num = num.replace(" ", "").replace("'", "")
    if "," in num and "." in num:
        mark: str | None = "," if num.rfind(",") > num.rfind(".") else "."
    elif "," in num:
        mark = None if all(len(p) == 3 for p in num.split(",")[1:]) else ","
    else:
        mark = "." if num.count(".") == 1 else None
    return len(num.rsplit(mark, 1)[1]) if mark else 0
