"""The offline answer-evidence judge: does one page state an item's answer, for the question's subject and period?

Imported questions are a benchmark's own words ("What is the FY2018 capital expenditure amount (in
USD millions) for 3M? ..."), not the `textlayer` writer's grammar, so `textlayer`'s judge cannot
parse them. This judge needs no grammar. It is given (question, reference answer, page) and
reads, from the page's text layer alone:

  figures   every figure the answer states ("$1577.00", "20% ... 23%", "$13.2 billion"): each must
            be printed on the page, values normalised ("$1,577", "1,577", "(1,577)", "1577.00" are
            one figure; a sign or parentheses never matter; a scale word in the answer or in the
            question, "in USD billions", is converted against the table's stated unit, e.g.
            "(in millions)"). Equal means equal at the coarser of the two printed precisions; a
            figure converted between scales may differ by 0.5% (an answer rounded to billions); a
            page printed coarser than the answer ("18" for "17.98") never states it.
            A percentage only matches a printed percentage.
  period    each figure found in a dated table column (or a row labelled by a year, as in a
            schedule of payments) must sit in a column of one of the
            question's years (FY2018 -> 2018, Q2 2023 -> 2023); a figure in prose or in an
            undated column needs the year printed nearby (its row, section, title; the lines
            around it) or, where nothing nearby names a year, in the document's fiscal period.
  subject   the figure's own row label and section (in prose: its line and the ones beside it)
            must share a content word with the question; a figure of three or more significant
            digits may rely on the table title, its column header or the lines around it instead.

An answer without figures ("Developed Rest of the World") is stated when 80% of its own content
words (those not already in the question; "yes"/"no" aside) are printed on the page with a
subject word of the question.

Labels: `sufficient` when the answer is stated; `supporting` when the page shows the question's
subject and period but not the answer (a statement holding a ratio's inputs, a look-alike that
prints another value); `irrelevant` otherwise.

What it cannot see (docs/hardening.md): a figure the page does not print (ratios, sums, averages:
computed answers are never `sufficient`, whatever the page holds); the company (a page of another
registrant printing the same figure for the same period and row is judged sufficient); charts
without a text layer; meaning beyond words (an answer of "Yes. It decreased." states nothing a
page can show, so it is never `sufficient`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from evalset_pipeline.core.hashing import sha256_text
from evalset_pipeline.core.judging.base import LabelResult, PageContext, PageView
from evalset_pipeline.core.pagetext.dates import MONTH_PREFIX
from evalset_pipeline.core.pagetext.layer import load_text_layer
from evalset_pipeline.core.pagetext.text import figure_text, number_value
from evalset_pipeline.core.reader.table_reader import Table, cell_unit, parse_value, read_tables

__all__ = [
    "AnswerFigure",
    "AnswerEvidenceJudge",
    "EvidenceVerdict",
    "answer_figures",
    "answer_printed",
    "judge_evidence",
    "question_years",
]

SCALE_TOLERANCE = 0.005  # relative, only between figures printed at different scales
TEXT_SHARE = 0.8  # share of a text answer's own words the page must print
WINDOW = 3  # lines either side of a prose figure that count as its context
SPECIFIC_DIGITS = 3  # a figure this precise may rely on its table title for the subject

_SCALES = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "mn": 1e6,
    "m": 1e6,
    "mm": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
}
_NUMBER = (
    r"(?<![\w.])(?P<neg>[-−])?\s?(?P<cur>US\$|\$|€|£|¥|₩)?\s?(?P<paren>\()?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?"
    r"|\d+(?:\.\d+)?|\.\d+)\)?"
)
_FIGURE = re.compile(
    _NUMBER + r"\s?(?P<pct>%|percent\b|per\s+cent\b)?\s?"
    r"(?P<scale>thousand|million|billion|trillion|mn|bn|mm|k|m|b)?(?![A-Za-z0-9])",
    re.I,
)
_ASKED_SCALE = re.compile(
    r"\bin\s+(?:units\s+of\s+)?(?:usd\s+|us\$\s?|\$\s?|dollars?\s+)?(thousand|million|billion)s?\b",
    re.I,
)
_YEAR_SPELLINGS = (
    re.compile(r"\bFY\s?'?(\d{4}|\d{2})\b", re.I),
    re.compile(r"\bQ[1-4]\s?'?\s?(?:of\s+)?(?:FY\s?)?((?:19|20)\d{2})\b", re.I),
    re.compile(r"\bQ[1-4]((?:19|20)\d{2})\b", re.I),
    re.compile(r"(?<![\d.,$])((?:19|20)\d{2})(?!\d|,\d)"),
)
# English function words and question scaffolding: never a subject.
_STOP = frozenset(
    """
a about above after again against all also am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers him his
how i if in into is it its itself just me more most my no nor not now of off on once only or other our out over own
same she should so some such than that the their them then there these they this those through to too under until up
very was we were fy what when where which while who whom why will with would you your yes year years fiscal period
based basis using use used give provide providing answer question questions response respond state explain please
shown show shows listed stated reported report reports according primarily mainly only detail details information
amount amounts value values figure figures number total usd dollar dollars million millions billion billions thousand
thousands percent percentage unit units round rounded decimal place places calculate calculated compute computed
end ended ending change changed
""".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9&'\-]*|\d+[A-Za-z][A-Za-z0-9]*")


@dataclass(frozen=True)
class AnswerFigure:
    """One figure an answer states, as a number (sign dropped) with what it means."""

    text: str
    value: float
    decimals: int
    percent: bool
    scale: float | None  # multiplier a scale word gives it ("billion" -> 1e9), None when unstated


@dataclass(frozen=True)
class _PageValue:
    value: float
    decimals: int
    percent: bool
    scale: float | None
    year: int | None  # the dated column it sits in; None for prose and undated columns
    context: str  # row label, section, table title and column header; or the lines around it
    near: str  # where its year may be printed (prose: the lines around it)
    where: str  # "table" | "text"
    local: str = ""  # the row's own label and section; or its line and the ones beside it


@dataclass(frozen=True)
class EvidenceVerdict:
    label: str  # sufficient | supporting | irrelevant
    rationale: str
    printed: (
        bool | None
    )  # the answer's figures (or words) are on the page, whatever their row and period; None: nothing to look for


def _decimals(num: str) -> int:
    return len(num.split(".", 1)[1]) if "." in num else 0


_MONTH_BEFORE = re.compile(MONTH_PREFIX + r"[a-z]*\.?\s*$", re.I)


def _not_a_figure(m: re.Match[str], text: str) -> bool:
    """Years, days of a date, list markers "(1)", and numbers inside a word ("COVID-19", "3M", "10-K")."""
    num, before = m["num"], text[: m.start()]
    if (
        len(num) == 4
        and num.isdigit()
        and 1900 <= int(num) <= 2100
        and not m["cur"]
        and not m["pct"]
        and not m["scale"]
    ):
        return True
    if re.search(r"[A-Za-z][-\u2010-\u2013]$", before) or (
        m["scale"] and len(m["scale"]) == 1 and not m["cur"]
    ):
        return True
    if (
        num.isdigit()
        and int(num) <= 31
        and _MONTH_BEFORE.search(before[-12:])
        and not (m["cur"] or m["pct"])
    ):
        return True
    return bool(
        m["paren"] and num.isdigit() and int(num) < 100 and not (m["cur"] or m["pct"] or m["scale"])
    )


# The analyses below are pure functions of a string and are cached: a question is judged against
# each of its ~6 candidate pages, and a page's value contexts against every question asking it, so
# an import of 1M rows would otherwise redo them millions of times (cProfile: most of the judge).
_STRING_CACHE = 65_536


@lru_cache(maxsize=_STRING_CACHE)
def answer_figures(answer: str, question: str = "") -> tuple[AnswerFigure, ...]:
    """The figures an answer states; years and fiscal labels ("FY2022", "Q2") are periods, not figures."""
    asked = _ASKED_SCALE.search(figure_text(question))
    asked_scale = _SCALES[asked.group(1).lower()] if asked else None
    out: list[AnswerFigure] = []
    text = figure_text(answer)
    for m in _FIGURE.finditer(text):
        if _not_a_figure(m, text):
            continue
        value = number_value(m["num"])
        scale_word = (m["scale"] or "").lower()
        if scale_word in ("m", "b", "k") and not m["cur"]:
            scale_word = ""  # "5 m" could be metres; only "$5m" is money
        scale = _SCALES.get(scale_word) if scale_word else (None if m["pct"] else asked_scale)
        out.append(
            AnswerFigure(m.group(0).strip(), abs(value), _decimals(m["num"]), bool(m["pct"]), scale)
        )
    return tuple(out)


@lru_cache(maxsize=_STRING_CACHE)
def question_years(question: str) -> frozenset[int]:
    """Years a question names: FY2018, FY20, Q2 2023, Q22023, 2021."""
    years: set[int] = set()
    text = figure_text(question)
    for pattern in _YEAR_SPELLINGS:
        for m in pattern.finditer(text):
            y = int(m.group(1))
            years.add(2000 + y if y < 100 else y)
    return frozenset(y for y in years if 1900 <= y <= 2100)


def _stem(word: str) -> str:
    w = word.casefold().strip("'-&")
    w = re.sub(r"['’]s$", "", w)  # possessive: "JnJ's" -> "jnj"
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


@lru_cache(maxsize=_STRING_CACHE)
def _terms(text: str) -> frozenset[str]:
    """Content words, stemmed: what a question is about (function words, scaffolding and years dropped)."""
    text = re.sub(
        r"\b(?:[A-Za-z]\.){2,}", lambda m: m.group(0).replace(".", ""), figure_text(text)
    )  # "U.S." -> "US"
    return frozenset(t for w in _WORD.findall(text) if (t := _term(w)))


_NUMBERISH = re.compile(r"(?:fy|q[1-4])?'?\d+(?:st|nd|rd|th)?")


@lru_cache(maxsize=_STRING_CACHE)
def _term(word: str) -> str:
    """A word's stem, or "" for a function word, a year or a number (words repeat across
    questions: each is stemmed once)."""
    s = _stem(word)
    return "" if len(s) < 2 or s in _STOP or _NUMBERISH.fullmatch(s) else s


@lru_cache(maxsize=_STRING_CACHE)
def _prefixes(words: frozenset[str]) -> frozenset[str]:
    """Every start of 4+ letters of these words (the words too): "does a word here extend w" is
    one lookup instead of a sorted search per question and page."""
    return frozenset(w[:n] for w in words for n in range(4, len(w) + 1))


def _overlap(wanted: frozenset[str], have: frozenset[str]) -> set[str]:
    """Words of `wanted` that `have` holds, or holds as a prefix/extension of 4+ letters
    ("expect"/"expected", "share"/"shareholder"): the stemming a reader does without thinking."""
    starts = _prefixes(have)
    return {
        w
        for w in wanted
        if w in have or (len(w) >= 4 and (w in starts or not have.isdisjoint(_proper_starts(w))))
    }


@lru_cache(maxsize=_STRING_CACHE)
def _proper_starts(word: str) -> tuple[str, ...]:
    return tuple(word[:n] for n in range(4, len(word)))


def _scale_of_unit(unit: str) -> tuple[float | None, bool]:
    u = unit.casefold()
    if "%" in u:
        return None, True
    for word, factor in (("trillion", 1e12), ("billion", 1e9), ("million", 1e6), ("thousand", 1e3)):
        if word in u:
            return factor, False
    return None, False


def _table_values(tables: Sequence[Table]) -> list[_PageValue]:
    out: list[_PageValue] = []
    for table in tables:
        for row in table.rows:
            for i, cell in enumerate(row.cells):
                value = parse_value(cell)
                if value is None or cell is None:
                    continue
                scale, percent = _scale_of_unit(cell_unit(table, row, i))
                col = table.columns[i] if i < len(table.columns) else None
                year = (col.end.year if col.end else col.year) if col is not None else None
                lead = row.label if row.label.strip() else (row.cells[0] or "")
                labelled = re.fullmatch(r"\s*((?:19|20)\d{2})\s*", lead)
                if (
                    labelled
                ):  # a schedule by year (payments due in 2024, ...): the row is the period
                    year = int(labelled.group(1))
                    if i == 0 and not row.label.strip():
                        continue  # the year itself, read as a number
                context = f"{row.parent} {row.label} {table.title} {col.header if col is not None else ''}"
                bare = re.sub(r"[^\d.]", "", cell)
                out.append(
                    _PageValue(
                        abs(value),
                        _decimals(bare),
                        percent or cell.strip().endswith("%"),
                        scale,
                        year,
                        context,
                        context,
                        "table",
                        f"{row.parent} {row.label}",
                    )
                )
    return out


def _text_values(text: str) -> list[_PageValue]:
    lines = [ln.strip() for ln in figure_text(text).splitlines() if ln.strip()]
    out: list[_PageValue] = []
    for i, line in enumerate(lines):
        window = " ".join(lines[max(0, i - WINDOW) : i + WINDOW + 1])
        local = " ".join(lines[max(0, i - 1) : i + 2])
        for m in _FIGURE.finditer(line):
            if _not_a_figure(m, line):
                continue
            scale_word = (m["scale"] or "").lower()
            if scale_word in ("m", "b", "k") and not m["cur"]:
                scale_word = ""
            out.append(
                _PageValue(
                    abs(number_value(m["num"])),
                    _decimals(m["num"]),
                    bool(m["pct"]),
                    _SCALES.get(scale_word),
                    None,
                    window,
                    window,
                    "text",
                    local,
                )
            )
    return out


@dataclass
class _Page:
    text: str
    values: list[_PageValue]
    terms: frozenset[str]
    context: PageContext | None

    def years_near(self, near: str) -> frozenset[int]:
        """Years printed near a value; where none is, the document's own fiscal period (a statement
        page need not print its year on every row). A year printed nearby always wins."""
        years = question_years(near)
        if not years and self.context is not None and self.context.period:
            years = frozenset(int(y) for y in re.findall(r"(?:19|20)\d{2}", self.context.period))
        return years


def _read(layer: dict[str, Any], context: PageContext | None) -> _Page:
    """A page's values and terms, read once per (text layer, document): an imported benchmark
    asks many questions of the same page, and reading its tables is most of the judge's cost."""
    return _read_cached(_LayerKey(layer), context)


class _LayerKey:
    """A text layer as a cache key: its text and word count tell layers apart (hashing every
    word box would cost what the cache saves); the layer itself rides along to be read."""

    def __init__(self, layer: dict[str, Any]):
        self.layer = layer
        self._key = (str(layer.get("text") or ""), len(layer.get("words") or ()))

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _LayerKey) and self._key == other._key


@lru_cache(maxsize=256)  # a page's layer is ~100 kB: the cache holds tens of MB at most
def _read_cached(layer: _LayerKey, context: PageContext | None) -> _Page:
    text = str(layer.layer.get("text") or "")
    values = _table_values(read_tables(layer.layer)) + _text_values(text)
    # the registrant's words are the page's under every name of its filer (a renamed filer)
    names = " ".join(context.names) if context else ""
    return _Page(text, values, _terms(text) | _terms(names), context)


def _same(f: AnswerFigure, p: _PageValue) -> bool:
    if f.percent != p.percent:
        return False
    a, b = f.value, p.value
    if f.scale and p.scale and f.scale != p.scale:
        b = p.value * p.scale / f.scale
        return math.isclose(a, b, rel_tol=SCALE_TOLERANCE) or abs(a - b) <= 0.5 * 10**-f.decimals
    if p.decimals >= f.decimals:  # the page is as precise as the answer: it rounds to it
        return abs(a - b) <= 0.5 * 10**-f.decimals + 1e-9
    # the page is coarser ("1,577" for "1577.00"): only an answer whose extra digits are zeros
    return abs(a - round(a, p.decimals)) <= 1e-9 and abs(a - b) <= 1e-9


def _period_ok(p: _PageValue, years: frozenset[int], page: _Page) -> bool:
    if not years:
        return True
    if p.year is not None:
        return p.year in years
    return bool(years & page.years_near(p.near))


def _significant_digits(f: AnswerFigure) -> int:
    digits = re.sub(r"\D", "", f.text.split("%")[0])
    return len(digits.lstrip("0"))


def _subject_ok(f: AnswerFigure, p: _PageValue, subject: frozenset[str]) -> bool:
    """The figure's own row (or line) shares a word with the question; a figure of 3+ significant
    digits may lean on its table's title or the lines around it instead ("Statement of Cash Flows"
    for a capital-expenditure question). Short figures ("2.5", "20%") occur by chance on most
    statements, so they need the row itself to be about the question."""
    if not subject or _overlap(subject, _terms(p.local)):
        return True
    return _significant_digits(f) >= SPECIFIC_DIGITS and bool(_overlap(subject, _terms(p.context)))


def _find(
    f: AnswerFigure, page: _Page, subject: frozenset[str], years: frozenset[int]
) -> tuple[_PageValue | None, bool]:
    """(a printed value that states this figure for the question's subject and period,
    whether the value is printed at all)."""
    printed = False
    for p in page.values:
        if not _same(f, p):
            continue
        printed = True
        if _period_ok(p, years, page) and _subject_ok(f, p, subject):
            return p, True
    return None, printed


def _own_words(answer: str, question: str) -> frozenset[str]:
    return _terms(answer) - _terms(question) - {"yes", "no"}


def judge_evidence(
    question: str, answer: str, layer: dict[str, Any], context: PageContext | None = None
) -> EvidenceVerdict:
    """Does the page state `answer` for `question`'s subject and period? (See the module docstring.)"""
    page = _read(layer, context)
    subject = _terms(question)
    years = question_years(question)
    shows_subject = bool(_overlap(subject, page.terms)) and (
        not years or bool(years & page.years_near(page.text))
    )
    fallback = "supporting" if shows_subject else "irrelevant"
    figures = answer_figures(answer, question)
    if figures:
        found: list[str] = []
        missing: list[str] = []
        elsewhere: list[str] = []
        for f in figures:
            hit, printed = _find(f, page, subject, years)
            (found if hit else missing).append(f.text)
            if not hit and printed:
                elsewhere.append(f.text)
        printed_all = not missing or len(elsewhere) == len(missing)
        if not missing:
            return EvidenceVerdict(
                "sufficient",
                f"states {', '.join(found)} for the question's subject and period",
                True,
            )
        why = (
            f"prints {', '.join(elsewhere)} but not for the question's subject and period"
            if elsewhere
            else f"does not print {', '.join(t for t in missing if t not in elsewhere)}"
        )
        return EvidenceVerdict(
            fallback, why + (f" (states {', '.join(found)})" if found else ""), printed_all
        )
    words = _own_words(answer, question)
    if not words:
        return EvidenceVerdict(
            fallback, "the answer states no figure or word a page could show", None
        )
    share = len(_overlap(words, page.terms)) / len(words)
    if share >= TEXT_SHARE and shows_subject:
        return EvidenceVerdict(
            "sufficient",
            f"prints {share:.0%} of the answer's words with the question's subject",
            True,
        )
    return EvidenceVerdict(
        fallback,
        f"prints {share:.0%} of the answer's words"
        + ("" if shows_subject else ", without the question's subject or period"),
        share >= TEXT_SHARE,
    )


def answer_printed(question: str, answer: str, layer: dict[str, Any]) -> bool | None:
    """Is the answer on the page at all (figures anywhere, or 80% of its words)? None: nothing to look for.
    `judge_evidence(question, answer, layer).printed` without its subject and period checks,
    which it never needs (an import asks this once per row)."""
    page = _read(layer, None)
    figures = answer_figures(answer, question)
    if figures:
        return all(any(_same(f, p) for p in page.values) for f in figures)
    words = _own_words(answer, question)
    if not words:
        return None
    return len(_overlap(words, page.terms)) / len(words) >= TEXT_SHARE


@lru_cache(maxsize=1)
def _source_hash() -> str:
    return sha256_text(Path(__file__).read_text(encoding="utf-8"))[:16]


class AnswerEvidenceJudge:
    """The judge behind `label` for imported items when no model is configured (backend `textlayer`)."""

    name = "answer-evidence"
    model = ""

    def prompt_hash(self, task: str) -> str:
        return _source_hash()

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "rules": _source_hash()}

    def label(self, triples: Iterable[tuple[str, str, PageView]]) -> list[LabelResult]:
        out = []
        for question, answer, page in triples:
            v = judge_evidence(question, answer, load_text_layer(str(page.text_path)), page.context)
            out.append(LabelResult(v.label, v.rationale))  # type: ignore[arg-type]
        return out
