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

from evalset_pipeline.core.pagetext.text import locale_decimals, locale_number

__all__ = [
    "normalize_answer",
    "parse_quantity",
    "Quantity",
    "anls",
    "answers_agree",
    "same_amount_rounded",
]

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
    "krw 100 millions": "억원",
    # Korean units as printed ("1,234백만원") are the writer's "(KRW millions)"
    "백만원": "krw millions",
    "백만 원": "krw millions",
    "천원": "krw thousands",
    "천 원": "krw thousands",
    "조원": "krw trillions",
    "조 원": "krw trillions",
    "원": "krw",
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
# An amount in parentheses is negative, as statements print it: "(431) (USD millions)", "$(431)".
_QUANTITY = re.compile(
    r"^(?P<prefix>us\$|\$|usd|₩|krw|€|eur)?\s*(?P<open>\()?\s*(?P<inner>\$)?\s*(?P<sign>[+\-−])?\s*"
    r"(?P<num>\d[\d.,' ]*\d|\d)\s*(?(open)\))\s*(?P<unit>[^\d]*)$"
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
    decimals: int = 0  # digits printed after the decimal mark: the precision it was rounded to


def parse_quantity(text: str) -> Quantity | None:
    """'1,234.5 USD m' -> Quantity(1234.5, 'usd m'); '+4.2%' -> (4.2, '%'); 'Cloud' -> None."""
    norm = normalize_answer(text)
    m = _QUANTITY.match(norm)
    if not m:
        return None
    value = locale_number(m["num"])
    if value is None:
        return None
    if m["sign"] in ("-", "−") or m["open"]:
        value = -value
    unit = m["unit"].strip().strip("()").strip()
    prefix = m["prefix"] or m["inner"]
    if prefix and not unit:
        unit = "usd" if prefix in ("$", "us$", "usd") else prefix
    elif prefix in ("$", "us$", "usd") and unit in ("m", "mn", "million"):
        unit = "usd m"
    return Quantity(value, _UNIT_ALIASES.get(unit, unit), locale_decimals(m["num"]))


# A unit's scale word: "usd millions" is usd times 1e6. What is left is the currency.
_SCALE_WORD = re.compile(
    r"\b(?:(?P<n>\d+)\s+)?(?P<w>thousands?|millions?|billions?|trillions?|m|mn|bn)$"
)
_MULTIPLIER = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "m": 1e6,
    "mn": 1e6,
    "bn": 1e9,
}


def _scaled(q: Quantity) -> tuple[str, float] | None:
    """(currency, multiplier) of a money quantity whose unit states a scale, else None."""
    m = _SCALE_WORD.search(q.unit)
    if not m:
        return None
    word = m["w"].rstrip("s") if m["w"] not in ("m", "mn", "bn") else m["w"]
    return q.unit[: m.start()].strip(), float(m["n"] or 1) * _MULTIPLIER[word]


def same_amount_rounded(a: Quantity, b: Quantity) -> bool:
    """One amount printed at two scales or precisions: "14.1 (USD billions)" is "14,082 (USD
    millions)" rounded, "6.1 billion" is "6,065 million". The finer figure must round to the
    coarser one at the coarser one's precision; percentages and counts are never rounded into
    each other (12% and 12.3% may be two facts)."""
    sa, sb = _scaled(a), _scaled(b)
    if sa is None or sb is None or (sa[0] and sb[0] and sa[0] != sb[0]):
        return False
    step_a, step_b = 10.0**-a.decimals * sa[1], 10.0**-b.decimals * sb[1]
    coarse, fine, step = (a, b, step_a) if step_a >= step_b else (b, a, step_b)
    cs, fs = (sa, sb) if coarse is a else (sb, sa)
    if abs(coarse.value) * cs[1] < 10 * step:
        return False  # "6 billion" says too little to stand for "6,065 million"
    return abs(fine.value * fs[1] - coarse.value * cs[1]) <= 0.5 * step * (1 + 1e-9)


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
        if math.isclose(qa.value, qb.value, rel_tol=1e-9, abs_tol=1e-9) and _units_agree(
            qa.unit, qb.unit
        ):
            return True
        return same_amount_rounded(qa, qb)
    if na == nb:
        return True
    fa, fb = _FILLER.sub("", na).strip(), _FILLER.sub("", nb).strip()
    if fa == fb:
        return True
    if (qa is None) != (qb is None):
        return False  # a number never agrees with a name
    if re.findall(r"\d+", fa) != re.findall(r"\d+", fb):
        return False  # "(431) …" and "(985) …" spell alike and state different figures
    return anls(fa, fb) >= ANLS_THRESHOLD
