"""A printed number's significant digits: one key for one figure however it is printed
("$(1,064.50)", "1.0645 billion" and "1,064,500" are all "10645"), and the one threshold for a
figure too specific to be printed elsewhere by chance. Shared by the evidence index (which
finds pages by it) and the offline labeller (which trusts a figure under other words by it)."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MIN_DIGITS", "digit_key", "is_specific"]

MIN_DIGITS = 3  # "2,500" (key "25") is printed by chance on many pages; "2,570" is not


def digit_key(text: str) -> str:
    """The significant digits of a printed number: "$(1,064.50)" -> "10645", "0.25%" -> "25"."""
    return re.sub(r"\D", "", unicodedata.normalize("NFKC", text or "")).strip("0")


def is_specific(text: str) -> bool:
    return len(digit_key(text)) >= MIN_DIGITS
