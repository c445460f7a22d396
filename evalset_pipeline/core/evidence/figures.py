"""A printed figure, normalised so that one figure in any format or scale is found as one.

"1,064", "$1,064", "(1,064)", "1.064" (billions) and "1,064,000" (thousands) print the same
digits: their *key* is "1064", the significant digits with separators, sign, decimal point and
leading/trailing zeros dropped. The key finds candidates; the magnitude (value times the scale
the table's unit states) tells figures of one key apart where both scales are known ("1,064" in
millions is not "$10.64" per share). A figure is specific enough to find by its key alone when
it has at least `MIN_DIGITS` significant digits: "2,500" (key "25") is printed by chance on
half a corpus, "1,064" is not.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from evalset_pipeline.core.pagetext.digits import MIN_DIGITS, digit_key
from evalset_pipeline.core.pagetext.text import number_value

__all__ = [
    "MIN_DIGITS",
    "Figure",
    "answer_figure",
    "digit_key",
    "same_magnitude",
    "scale_of_unit",
    "text_figure_keys",
]

_SCALE_WORDS = {
    "thousands": 1e3,
    "millions": 1e6,
    "billions": 1e9,
    "trillions": 1e12,
}
# Units as `table_reader.cell_unit` writes them: "USD millions", "KRW 100 millions", "%", "".
_UNIT_SCALE = re.compile(r"(?:(\d+)\s+)?(thousands|millions|billions|trillions)\b", re.I)
# A Korean answer's unit as the page prints it ("1,234백만원", "56억원"): its scale word.
_KO_UNIT_SCALE = re.compile(r"(조|십억|억|백만|천)\s*(?:원|달러)")
_KO_SCALES = {"조": 1e12, "십억": 1e9, "억": 1e8, "백만": 1e6, "천": 1e3}
# A figure as prose and tables print it: thousands groups or plain digits, optional decimals.
_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?![\w]|,\d)")
_YEAR = re.compile(r"(?:19|20)\d{2}")


def scale_of_unit(unit: str) -> float | None:
    """The multiplier a unit states ("USD millions" -> 1e6, "KRW 100 millions" -> 1e8, a Korean
    answer's "백만원" -> 1e6), None when it states none ("USD" may be dollars or an unstated
    scale; "%" and counts have none)."""
    ko = _KO_UNIT_SCALE.search(unit or "")
    if ko:
        return _KO_SCALES[ko.group(1)]
    m = _UNIT_SCALE.search(unit or "")
    if not m:
        return None
    return float(m.group(1) or 1) * _SCALE_WORDS[m.group(2).lower()]


@dataclass(frozen=True)
class Figure:
    """A figure as a magnitude: `value` (sign dropped) times `scale` when the scale is known."""

    key: str
    value: float
    scale: float | None = None
    percent: bool = False
    decimals: int = 0  # digits printed after the decimal mark

    @property
    def step(self) -> float | None:
        """What the last printed digit is worth, when the scale is known: 12.0 billion -> 1e8."""
        return 10.0**-self.decimals * self.scale if self.scale else None

    @property
    def precise(self) -> bool:
        """A scaled amount whose rounding is within 1% either way ("12.0 billion", "6,065
        million"): findable by its magnitude even with few digits."""
        step, magnitude = self.step, self.magnitude
        return bool(step and magnitude and not self.percent and step / 2 <= 0.01 * magnitude)

    @property
    def digits(self) -> int:
        return len(self.key)

    @property
    def specific(self) -> bool:
        return self.digits >= MIN_DIGITS

    @property
    def magnitude(self) -> float | None:
        return self.value * self.scale if self.scale else None


def same_magnitude(a: Figure, b: Figure) -> bool:
    """Two figures of one key are the same amount unless both scales are known and differ by
    more than rounding: 1,064 (millions) is 1,064,000 (thousands) and 1.064 (billions); it is
    not 1,064 (thousands). A percentage is only ever the same as a percentage."""
    if a.key != b.key or a.percent != b.percent:
        return False
    ma, mb = a.magnitude, b.magnitude
    if ma is None or mb is None or ma == 0 or mb == 0:
        return True
    return abs(math.log10(ma) - math.log10(mb)) < 0.5


def answer_figure(answer: str) -> Figure | None:
    """The figure an answer states, with the scale of its unit: "1,064 (USD millions)" is 1,064
    millions, "12.5%" a percentage, "3,210" a count; None when it states no figure (a segment's
    name). Only the first figure counts: the writer's answers are one printed cell."""
    text = unicodedata.normalize("NFKC", answer or "")
    m = _NUMBER.search(text)
    if not m:
        return None
    key = digit_key(m.group(1))
    if not key:
        return None
    rest = text[m.end() :]
    number = m.group(1)
    return Figure(
        key,
        number_value(number),
        scale_of_unit(rest),
        percent=rest.lstrip().startswith("%"),
        decimals=len(number.split(".", 1)[1]) if "." in number else 0,
    )


def text_figure_keys(text: str) -> list[str]:
    """The keys of every specific figure a page's text prints (years aside), distinct, in order:
    what finds a page that prints an answer anywhere, in a table the reader missed or in prose."""
    out: dict[str, None] = {}
    for m in _NUMBER.finditer(unicodedata.normalize("NFKC", text or "")):
        number = m.group(1)
        if _YEAR.fullmatch(number):
            continue  # 2023 is a period, not a figure
        key = digit_key(number)
        if len(key) >= MIN_DIGITS:
            out[key] = None
    return list(out)
