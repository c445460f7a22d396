"""Do two short answers agree? Normalise first, then compare (DocVQA-style ANLS for text).

Normalisation (seeds/004): NFKC, casefold, whitespace collapsed, numbers parsed whatever their
locale spelling (1.234,56 / 1,234.56 / 1234.56 are one amount), units compared loosely.

One deliberate departure from plain ANLS: when both answers are numbers they must be equal as
numbers. "1,234.5 USD m" and "1,284.5 USD m" are 92% similar as strings and are two different
facts; an edit-distance threshold would call them the same answer.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

__all__ = ["normalize_answer", "parse_quantity", "Quantity", "anls", "answers_agree"]

ANLS_THRESHOLD = 0.5

# Unit spellings that mean the same thing (after casefold). The value is the canonical unit.
_UNIT_ALIASES = {
    "usd m": "usd m",
    "usd mn": "usd m",
    "usd million": "usd m",
    "usd millions": "usd m",
    "$m": "usd m",
    "$ m": "usd m",
    "us$m": "usd m",
    "us$ m": "usd m",
    "$ million": "usd m",
    "million usd": "usd m",
    "m usd": "usd m",
    "million": "m",
    "mn": "m",
    "m": "m",
    "usd bn": "usd bn",
    "usd billion": "usd bn",
    "$bn": "usd bn",
    "억원": "억원",
    "억 원": "억원",
    "억": "억원",
    "명": "persons",
    "employees": "persons",
    "employee": "persons",
    "people": "persons",
    "persons": "persons",
    "ftes": "persons",
    "fte": "persons",
    "staff": "persons",
    "%": "%",
    "percent": "%",
    "pct": "%",
    "퍼센트": "%",
    "% yoy": "%",
    "% y/y": "%",
}
_QUANTITY = re.compile(
    r"^(?P<prefix>us\$|\$|usd|₩|krw|€|eur)?\s*(?P<sign>[+\-−])?\s*(?P<num>\d[\d.,' ]*\d|\d)\s*(?P<unit>[^\d]*)$"
)
_FILLER = re.compile(r"^(?:the|a|an)\s+|\s+(?:segment|segments|division|business|부문|사업부)$")


def normalize_answer(text: str) -> str:
    """NFKC, casefold, collapse whitespace, drop surrounding quotes and trailing punctuation."""
    text = unicodedata.normalize("NFKC", text or "").casefold()
    text = re.sub(r"\s+", " ", text).strip()
    text = text.strip(" \"'`“”‘’")
    text = re.sub(r"[.。!?;:]+$", "", text).strip()
    return text


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str  # canonical unit, "" when none


def _parse_number(num: str) -> float | None:
    """Locale-tolerant: the last of '.'/',' is the decimal mark when both occur; a lone ',' or
    '.' followed by exactly three digits (possibly repeated) is a thousands separator."""
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


def parse_quantity(text: str) -> Quantity | None:
    """'1,234.5 USD m' -> Quantity(1234.5, 'usd m'); '+4.2%' -> (4.2, '%'); 'Cloud' -> None."""
    norm = normalize_answer(text)
    m = _QUANTITY.match(norm)
    if not m:
        return None
    value = _parse_number(m["num"])
    if value is None:
        return None
    if m["sign"] in ("-", "−"):
        value = -value
    unit = m["unit"].strip().strip("()").strip()
    if m["prefix"] and not unit:
        unit = "usd" if m["prefix"] in ("$", "us$", "usd") else m["prefix"]
    elif m["prefix"] in ("$", "us$", "usd") and unit in ("m", "mn", "million"):
        unit = "usd m"
    return Quantity(value, _UNIT_ALIASES.get(unit, unit))


def anls(a: str, b: str) -> float:
    """Normalised Levenshtein similarity, zeroed below the DocVQA threshold of 0.5."""
    if not a and not b:
        return 1.0
    sim = Levenshtein.normalized_similarity(a, b)
    return sim if sim >= ANLS_THRESHOLD else 0.0


def _units_agree(a: str, b: str) -> bool:
    """Loose: a missing unit agrees with anything; otherwise aliases or close spellings."""
    if not a or not b or a == b:
        return True
    if {a, b} <= {"m", "usd m"}:
        return True
    return anls(a, b) >= ANLS_THRESHOLD


def answers_agree(a: str | None, b: str | None) -> bool:
    """True when two answers state the same thing (numbers equal as numbers, text by ANLS >= 0.5)."""
    if a is None or b is None:
        return False
    na, nb = normalize_answer(a), normalize_answer(b)
    if not na or not nb:
        return na == nb
    qa, qb = parse_quantity(na), parse_quantity(nb)
    if qa is not None and qb is not None:
        # '+4.2%' and '4.2%' agree; '-4.2%' does not. An explicit '+' is not a different number.
        return math.isclose(qa.value, qb.value, rel_tol=1e-9, abs_tol=1e-9) and _units_agree(
            qa.unit, qb.unit
        )
    if na == nb:
        return True
    fa, fb = _FILLER.sub("", na).strip(), _FILLER.sub("", nb).strip()
    if fa == fb:
        return True
    if (qa is None) != (qb is None):
        return False  # a number never agrees with a name
    return anls(fa, fb) >= ANLS_THRESHOLD
