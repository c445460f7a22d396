"""A document's form and reporting period, read from its cover and the spans its statements print.

Strongest evidence first, each recorded with its source:

  cover      "For the fiscal year ended December 31, 2022", "For the quarterly period ended
             July 1, 2023" (the phrase of the form's kind first), "사업연도 2023년 01월 01일 부터
             2023년 12월 31일 까지" (a range: its length says year, half, quarter or month; a
             quarterly report's range runs from its year's start); an annual report whose
             statements report a later year than its cover's date takes that year
  spans      the latest "three months / thirteen weeks / quarter ended <date>" (a quarter), else
             the latest "year ended <date>" (a year), that the document's pages print
  label      a period the first page's top or the PDF title names ("FY24 Q2", "2022
             Fourth-Quarter", "2023년 2분기", an annual report's "2023 Annual Report"), most
             specific first

Dates become the filer's own fiscal labels through `fiscal.FiscalCalendar`; the calendar comes
from the same document (`fiscal_year_end.py`: its annual period, what it states of its year, a
year-to-date column) and then from the filer's documents by vote (`filer_facts.py`). An event
report (8-K, 6-K) has no reporting period, and a dated event ("Date of report", "dated June 30,
2003") is never one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from evalset_pipeline.core.metadata.fiscal_year_end import (
    CONFIDENCE,
    CalendarEvidence,
    document_calendar,
)
from evalset_pipeline.core.pagetext.dates import (
    DATE_FORMS,
    MONTH_DAY,
    find_dates,
    parse_date,
    plain,
)
from evalset_pipeline.core.pagetext.fiscal import FiscalCalendar
from evalset_pipeline.core.pagetext.korean import (
    budget_year,
    date_relative,
    relative_periods,
    stated_instants,
    stated_ranges,
)
from evalset_pipeline.core.pagetext.periods import (
    normalize_period,
    parse_periods,
    period_kind,
)

__all__ = ["ReportingPeriod", "find_form", "find_reporting_period", "FORM_KINDS", "spans_in"]

# Form -> the kind of period it reports.
FORM_KINDS = {
    "10-K": "year",
    "20-F": "year",
    "40-F": "year",
    "10-KT": "year",
    "annual-report": "year",
    "10-Q": "quarter",
    "10-QT": "quarter",
    "quarterly-report": "quarter",
    "half-year-report": "half",
    "monthly-report": "month",
    "earnings-release": "",
    "8-K": "",
    "6-K": "",
}

_FORMS = [
    (re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|40-F|6-K|10-KT|10-QT)\b", re.I), None),
    (re.compile(r"사\s*업\s*보\s*고\s*서"), "annual-report"),
    (
        re.compile(r"반\s*기\s*보\s*고\s*서|half[- ]year(?:ly)?\s+report|interim\s+report", re.I),
        "half-year-report",
    ),
    (
        re.compile(r"분\s*기\s*보\s*고\s*서|quarterly\s+report(?!\s+pursuant)", re.I),
        "quarterly-report",
    ),
    (re.compile(r"monthly\s+(?:report|statistics|bulletin)|월간|월보", re.I), "monthly-report"),
    (
        re.compile(
            r"annual\s+(?:report|performance\s+report|financial\s+report)|연차\s*보고서|연간\s*보고서",
            re.I,
        ),
        "annual-report",
    ),
    (
        re.compile(
            r"for\s+immediate\s+release|press\s+release|\b(?:reports|announces|posts)\b[^\n]{0,80}\bresults\b",
            re.I,
        ),
        "earnings-release",
    ),
]

# Any full date a cover prints, in one group (`date`, renamed `start` / `end` for a range).
_DATE = r"(?P<date>" + "|".join(plain(form) for form in DATE_FORMS) + ")"
# A two-column cover can put a few words of the next column between "ended" and its date.
_GAP = r"\s*:?\s*(?:[^\d\n]{0,40}?\s)?"
_COVER = [
    (re.compile(r"for\s+the\s+(?:fiscal\s+)?year\s+ended" + _GAP + _DATE, re.I), "year"),
    (re.compile(r"for\s+the\s+quarterly\s+period\s+ended" + _GAP + _DATE, re.I), "quarter"),
    (
        re.compile(
            r"for\s+the\s+(?:six[- ]month|half[- ]year(?:ly)?|interim)\s+period\s+ended"
            + _GAP
            + _DATE,
            re.I,
        ),
        "half",
    ),
    (re.compile(r"for\s+the\s+month\s+ended" + _GAP + _DATE, re.I), "month"),
]
# Event reports (8-K, 6-K) carry a date of report, not a reporting period.
_EVENT_FORMS = {"8-K", "6-K"}
_RANGE = re.compile(
    _DATE.replace("?P<date>", "?P<start>")
    + r"\s*(?:부터|~|–|-|to|through)\s*"
    + _DATE.replace("?P<date>", "?P<end>")
    + r"\s*(?:까지)?",
    re.I,
)
# Span lengths in months or in weeks: 52/53-week filers count "thirteen / twenty-six / thirty-nine
# weeks", grocers "twelve / sixteen / twenty-eight / forty weeks"; a span in weeks is the nearest of
# a quarter, a half, nine months or a year ("twelve weeks" is a quarter, never a year).
_NUMBER_WORDS = {
    "three": 3, "six": 6, "nine": 9, "twelve": 12, "thirteen": 13, "sixteen": 16, "twenty-four": 24,
    "twenty-six": 26, "twenty-eight": 28, "thirty-six": 36, "thirty-nine": 39, "forty": 40,
    "fifty-two": 52, "fifty-three": 53,
}  # fmt: skip
_COUNT = r"(?:" + "|".join(w.replace("-", "[- ]") for w in _NUMBER_WORDS) + r"|\d{1,2})"
# "Three Months Ended July 1, 2023" / "Quarter ended" / "Year Ended" / "Fiscal Year Ended"; a column
# header may put a line break (or the other column's words) between the span and its dates.
_SPAN = re.compile(
    r"\b(?:(?P<n>" + _COUNT + r")[- ](?P<unit>months?|weeks?)"
    r"|(?P<q>quarter)|(?P<y>(?:fiscal\s+)?year)s?)\s+(?:period\s+)?end(?:ed|ing)\b",
    re.I,
)


@dataclass(frozen=True)
class ReportingPeriod:
    period: str = ""  # canonical fiscal label: 2023-Q2, 2023, 2023-H1, 2023-06
    kind: str = ""  # year | half | quarter | month
    end: date | None = None
    source: str = ""  # cover | spans | label | ""
    confidence: float = 0.0
    calendar: FiscalCalendar = FiscalCalendar()
    calendar_source: str = "default"  # cover | stated | spans | guess | filer | default
    calendar_confidence: float = CONFIDENCE["default"]

    def relabel(self, calendar: FiscalCalendar, source: str, confidence: float) -> ReportingPeriod:
        """The same period end in another fiscal calendar (the filer's documents knew its year end)."""
        if self.end is None or self.source == "label":
            return self
        return ReportingPeriod(
            calendar.label(self.end, self.kind),
            self.kind,
            self.end,
            self.source,
            self.confidence,
            calendar,
            source,
            confidence,
        )


def find_form(cover_text: str, title: str = "") -> str:
    for pattern, form in _FORMS:
        m = pattern.search(cover_text) or pattern.search(title)
        if m:
            return form or m.group(1).upper()
    return ""


def _span_months(count: str, unit: str) -> int | None:
    """Months of "<count> months|weeks": weeks to the nearest quarter, half, nine months or year."""
    word = re.sub(r"[- ]+", "-", count.lower())
    n = int(word) if word.isdigit() else _NUMBER_WORDS.get(word)
    if n is None:
        return None
    if unit.lower().startswith("month"):
        return n if n in (1, 3, 6, 9, 12) else None
    if not 10 <= n <= 56:
        return None
    return min((3, 6, 9, 12), key=lambda months: abs(months - n / 4.345))


def spans_in(text: str, window: int = 160) -> list[tuple[int, date]]:
    """(months, end date) of every "N months / quarter / year ended <date>" span in `text`.

    Each span phrase takes the dates that follow it within `window` characters, up to the next
    span phrase, so a header "Three Months Ended | Six Months Ended" over four dated columns gives
    both spans their dates.
    """
    flat = re.sub(r"\s+", " ", text)
    phrases = list(_SPAN.finditer(flat))
    out: list[tuple[int, date]] = []
    pending: list[
        tuple[int, str, int]
    ] = []  # (months, "June 30", end) of spans awaiting their years
    for i, m in enumerate(phrases):
        months = _span_months(m["n"], m["unit"]) if m["n"] else (3 if m["q"] else 12)
        if months is None:
            continue
        stop = min(m.end() + window, phrases[i + 1].start() if i + 1 < len(phrases) else len(flat))
        base = m.end()
        dates = _column_dates(flat[base:stop])
        if not dates and i + 1 < len(phrases) and phrases[i + 1].start() - m.end() < 40:
            # "Three Months Ended  Six Months Ended / July 1, 2023 ..." : the dates follow the next phrase
            nxt = phrases[i + 2].start() if i + 2 < len(phrases) else len(flat)
            base = phrases[i + 1].end()
            dates = _column_dates(flat[base : min(base + window, nxt)])
        out += [(months, d) for _, _, d in dates]
        if dates:
            # "March 31,\n2021\n2020" flattens to "March 31, 2021 2020": the bare years after the
            # date head the next columns, on the same month and day.
            last = dates[-1]
            for token in flat[base + last[1] : base + last[1] + 40].split():
                if not re.fullmatch(r"(?:19|20)\d{2}", token):
                    break
                try:
                    out.append((months, last[2].replace(year=int(token))))
                except ValueError:
                    break
        if not dates:
            md = _MONTH_DAY_ONLY.match(flat, m.end())
            if md is not None:
                pending.append((months, md["md"], md.end()))
        elif pending:
            out += _years_under(pending, flat)
            pending = []
    return out + (_years_under(pending, flat) if pending else [])


# "Three months ended June 30," over columns "2023 | 2022": the month and day, the years below.
_MONTH_DAY_ONLY = re.compile(
    r"\s*(?P<md>" + MONTH_DAY + r")"
    r"\s*,?(?!\s*,?\s*(?:19|20)\d{2})",
    re.I,
)


def _years_under(pending: list[tuple[int, str, int]], flat: str) -> list[tuple[int, date]]:
    """Spans that name a month and day but no year, side by side ("Three months ended June 30, |
    Six months ended June 30,"), share the run of year headers that follows: split evenly."""
    tail = re.sub(r"\([^()]{0,80}\)", " ", flat[pending[-1][2] : pending[-1][2] + 200])
    years: list[str] = []
    for token in tail.split():
        if re.fullmatch(r"(?:19|20)\d{2}", token):
            years.append(token)
        elif re.search(r"\d|\$", token):
            break  # the first figure: the headers are over
    if not years or len(years) % len(pending):
        return []
    per = len(years) // len(pending)
    out: list[tuple[int, date]] = []
    for k, (months, md, _) in enumerate(pending):
        for y in years[k * per : (k + 1) * per]:
            d = parse_date(f"{md}, {y}")
            if d is not None:
                out.append((months, d))
    return out


def _column_dates(text: str, max_gap: int = 25) -> list[tuple[int, int, date]]:
    """Dates that head columns: each close to the phrase or to the date before it (prose runs on)."""
    out = []
    last = 0
    for start, end, d in find_dates(text):
        if start - last > max_gap:
            break
        out.append((start, end, d))
        last = end
    return out


def _current(dates: Sequence[date]) -> date:
    """The current period: the latest date printed often enough not to be a stray (a comparative
    column is printed as often as the current one, so frequency alone cannot choose)."""
    counts = Counter(dates)
    floor = max(2, 0.25 * max(counts.values()))
    frequent = [d for d, c in counts.items() if c >= floor]
    return max(frequent) if frequent else max(counts, key=lambda d: (counts[d], d))


def _kind_of_range(start: date, end: date) -> str:
    days = (end - start).days
    if days > 300:
        return "year"
    if days > 150:
        return "half"
    if days > 60:
        return "quarter"
    return "month"


def find_reporting_period(page_texts: Sequence[str], form: str, title: str = "") -> ReportingPeriod:
    """The reporting period of one document from its pages' text (in order) and its PDF title."""
    if form in _EVENT_FORMS:
        # An event report has a date of report, not a period; an exhibit's "fiscal year ended" is
        # the exhibit's (its pages keep the periods they print themselves).
        return ReportingPeriod()
    cover = re.sub(r"[ \t]+", " ", "\n".join(page_texts[:3]))
    quarterly = FORM_KINDS.get(form) == "quarter"
    annual = FORM_KINDS.get(form) == "year"
    # statements sit early enough in most documents (bounded work per document); an annual report
    # that is mostly narrative up front is read to its end for the year its statements report
    spans = spans_in("\n".join(page_texts[:60]))
    if annual and len(page_texts) > 60:
        spans += spans_in("\n".join(page_texts[60:]))
    end: date | None = None
    kind = ""
    range_start: date | None = None
    # The cover's own period: the phrase of the form's kind, else the first one the cover prints
    # (a quarterly report's early pages also name "the fiscal year ended" of its annual report).
    stated = [(c.start(), k, c) for pattern, k in _COVER for c in [pattern.search(cover)] if c]
    stated.sort(key=lambda t: (t[1] != FORM_KINDS.get(form), t[0]))
    for _, k, phrase in stated:
        found = find_dates(phrase["date"])
        if found:
            end, kind = found[0][2], k
            break
    if end is None:
        m = _RANGE.search(cover)
        if m:
            start_d, end_d = find_dates(m["start"]), find_dates(m["end"])
            if start_d and end_d and end_d[0][2] > start_d[0][2]:
                end, kind = end_d[0][2], _kind_of_range(start_d[0][2], end_d[0][2])
                range_start = start_d[0][2]
                if quarterly and kind != "month":
                    kind = "quarter"  # a quarterly report's range runs from its year's start
    source, confidence = ("cover", 0.95) if end is not None else ("", 0.0)
    if end is not None and kind == "year":
        later = _later_year(spans, end)
        if later is not None:
            # The cover names the year before (a date on a glossy cover); the statements report a later one.
            end, source, confidence = later, "spans", 0.8
    if end is None and not annual:
        quarters = [d for n, d in spans if n == 3]
        years = [d for n, d in spans if n == 12]
        if quarters and not (form == "" and _reads_as_year(spans, quarters, years)):
            end, kind = _current(quarters), "quarter"
        elif not quarters:
            labelled = _from_labels(page_texts, title, kinds=("month", "quarter", "half"))
            if labelled.period:
                return labelled
    if end is None and spans:
        years = [d for n, d in spans if n == 12]
        if years:
            end, kind = _current(years), "year"
    if end is not None and not source:
        source, confidence = "spans", 0.8
    if end is not None:
        if range_start is not None:
            evidence = CalendarEvidence(
                FiscalCalendar((range_start.month - 2) % 12 + 1), "cover", CONFIDENCE["cover"]
            )
        else:
            evidence = document_calendar(page_texts, spans, end, kind, quarterly, source)
        calendar = evidence.calendar
        return ReportingPeriod(
            calendar.label(end, kind),
            kind,
            end,
            source,
            confidence,
            calendar,
            evidence.source,
            evidence.confidence,
        )
    if annual:
        # an annual report's label is a year ("2023 Annual Report"): a cover's bare "December 31,
        # 2022" (a share price's date, a letter's) is no quarter
        labelled = _annual_label(page_texts, title)
        if labelled.period:
            return labelled
    # A budget program sheet's year is the one its budget's stages ("정부안 | 확정") are printed
    # under, on whichever of its first pages its summary table sits.
    for text in page_texts[:3]:
        year = budget_year(text)
        if year is not None:
            return ReportingPeriod(str(year), "year", None, "label", 0.6)
    return _from_labels(page_texts, title)


_ANNUAL_YEAR = re.compile(
    r"annual\s+(?:\w+\s+)?report\D{0,12}?((?:19|20)\d{2})\b|"
    r"\b((?:19|20)\d{2})\s+annual\s+(?:\w+\s+)?report|"
    r"(?:연차|연간)\s*보고서\D{0,6}((?:19|20)\d{2})|((?:19|20)\d{2})\s*년?\s*(?:연차|연간)\s*보고서",
    re.I,
)


def _annual_label(page_texts: Sequence[str], title: str) -> ReportingPeriod:
    """The year an annual report's cover or title names beside its name, else its year labels."""
    first = page_texts[0] if page_texts else ""
    for text in ("\n".join(first.splitlines()[:12]), title):
        m = _ANNUAL_YEAR.search(text)
        if m:
            year = next(g for g in m.groups() if g)
            return ReportingPeriod(year, "year", None, "label", 0.6)
    return _from_labels(page_texts, title, kinds=("year",))


def _later_year(spans: Sequence[tuple[int, date]], cover_end: date) -> date | None:
    """A year end after the cover's that the statements print about as often as the cover's (the
    comparative year is printed as often as the current one; a projection once or twice), within
    two years."""
    years = Counter(d for n, d in spans if n == 12)
    floor = max(3, 0.8 * years.get(cover_end, 0))
    later = [
        d
        for d, c in years.items()
        if cover_end < d <= date(cover_end.year + 2, 12, 31) and c >= floor
    ]
    return max(later) if later else None


def _reads_as_year(
    spans: Sequence[tuple[int, date]], quarters: Sequence[date], years: Sequence[date]
) -> bool:
    """A document of no known form whose latest year ends with or after its latest quarter, and
    is printed as often: an annual report with a quarterly-data note, not a quarter."""
    if not years:
        return False
    year_end, quarter_end = _current(years), _current(quarters)
    return year_end >= quarter_end and years.count(year_end) >= quarters.count(quarter_end)


def _from_labels(
    page_texts: Sequence[str],
    title: str,
    kinds: tuple[str, ...] = ("month", "quarter", "half", "year"),
) -> ReportingPeriod:
    """No dated period: the labels the first page's top lines (or the PDF title) print, most specific first."""
    first = page_texts[0] if page_texts else ""
    top = "\n".join(first.splitlines()[:12])
    rank = {"month": 0, "quarter": 1, "half": 2, "year": 3}
    for text in (top, title, first):
        found = Counter(p for p in parse_periods(text) if period_kind(p) in kinds)
        if found:
            best = min(found, key=lambda p: (rank.get(period_kind(p), 9), -int(p[:4])))
            return ReportingPeriod(best, period_kind(best), None, "label", 0.6)
    return ReportingPeriod()


_YEAR_HEADER = re.compile(r"^\s*(?:(?:fiscal|FY)\s*)?((?:19|20)\d{2})\s*$", re.I)
_KIND_OF_SPAN = {3: "quarter", 6: "half", 12: "year", 1: "month"}


def printed_periods(
    text: str, calendar: FiscalCalendar, period: str = "", period_end: str = ""
) -> list[str]:
    """Periods a page prints figures for, in the filer's calendar: every "three months / year ended
    <date>" column (comparatives included), year-only column headers ("2023  2022  2021") and
    header cells that are a period label alone ("Q2 2023"); on a Korean page also the ranges and
    "현재" dates its heading states, and its "당기말 | 전기말" columns dated by the filing's own
    `period` (canonical) and `period_end` (ISO), when given.
    Nine-month year-to-date spans have no canonical label and are left out."""
    found: dict[str, None] = {}
    # Korean statements state each column's period in the heading ("제 54 기 2022.01.01 부터
    # 2022.12.31 까지"), balances by their date ("2022.12.31 현재": the year or quarter it closes).
    for months, end in spans_in(text) + stated_ranges(text):
        kind = _KIND_OF_SPAN.get(months)
        if kind:
            found.setdefault(calendar.label(end, kind), None)
    instants = stated_instants(text)
    # "당기말 | 전기말" columns print the filing's own period and the one before.
    for named, back in relative_periods(text):
        dated = date_relative(named, back, period, period_end)
        if dated is None:
            continue
        span, end = dated
        if span is None:
            instants.append(end)
        elif span in _KIND_OF_SPAN:
            found.setdefault(calendar.label(end, _KIND_OF_SPAN[span]), None)
    for end in instants:
        closes_year = calendar.label(end, "quarter").endswith("-Q4")
        found.setdefault(calendar.label(end, "year" if closes_year else "quarter"), None)
    for line in text.splitlines():
        m = _YEAR_HEADER.match(line)
        if m:
            found.setdefault(m.group(1), None)
        elif len(line) <= 30 and not find_dates(line):
            # a column header that is a period label and nothing else ("Q2 2023", "FY2022", "2023년 2분기");
            # bare dates are left to the spans above, which know the filer's calendar
            label = normalize_period(line)
            if label:
                found.setdefault(label, None)
    return list(found)
