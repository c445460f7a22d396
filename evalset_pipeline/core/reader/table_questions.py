"""Questions about one cell of a real financial table, for the offline `textlayer` backend.

Writer: from the page's tables (`table_reader`), one row and one dated column, chosen
deterministically from the page's content; the question names the row (with its section when the
row is a sub-item) and the column's period as the page prints it, and the answer is the cell as
printed with the table's unit:

    What was Total revenue for the year ended December 1, 2017?  ->  7,301,505 (USD thousands)
    What were Total assets as of December 31, 2022?               ->  46,455 (USD millions)

It never computes (no sums, no shares), and a row's unit is `cell_unit`'s: a money row never
reads as "employees", a share count never as money.

Judge: the same grammar read back. A page answers when one of its tables has a row whose label
matches (loosely: case, punctuation, word order) and a column of the asked kind and date, any
column, comparatives included; the entity named in a qualifier must be the page's, as the page
prints it or as its document's registrant (`PageContext`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from rapidfuzz import fuzz

from evalset_pipeline.core.hashing import sha256_text
from evalset_pipeline.core.judging.base import Judgment, PageContext, WrittenQuestion
from evalset_pipeline.core.pagetext.digits import is_specific
from evalset_pipeline.core.pagetext.fiscal import FiscalCalendar, effective_year, find_dates
from evalset_pipeline.core.pagetext.korean import date_relative, has_hangul
from evalset_pipeline.core.pagetext.periods import MONTH_NAMES, MONTH_WORD
from evalset_pipeline.core.reader.answers import answers_agree
from evalset_pipeline.core.reader.korean_prose import read_korean_prose_tables
from evalset_pipeline.core.reader.korean_questions import (
    SECTION_WORD,
    korean_label_phrase,
    korean_period_phrase,
    korean_question,
    parse_korean_question,
    qualify_korean_question,
)
from evalset_pipeline.core.reader.prose_reader import read_prose_tables
from evalset_pipeline.core.reader.table_question import TableQuestion
from evalset_pipeline.core.reader.table_reader import (
    Column,
    Row,
    Table,
    cell_unit,
    names_per_share,
    read_tables,
)
from evalset_pipeline.core.reader.table_reshape import reshape_tables

__all__ = [
    "TablePage",
    "TableQuestion",
    "read_table_page",
    "parse_table_question",
    "write_table_question",
    "judge_table_question",
    "qualify_table_question",
    "has_dated_table",
    "column_measure",
    "dated_page",
    "label_words",
    "norm_words",
    "prints_answer",
    "named_alike",
    "same_item",
    "states_measure",
    "ROW_WITHOUT_PERIOD",
]

ROW_WITHOUT_PERIOD = (
    "is on the page but not for the asked period"  # the judge's reason a labeller reads
)

LABEL_MATCH = 90.0
ENTITY_MATCH = 90.0
_SPANS = {3: "three months", 6: "six months", 9: "nine months", 12: "year"}
_SPAN_WORDS = {
    "three months": 3,
    "six months": 6,
    "nine months": 9,
    "year": 12,
    "fiscal year": 12,
    "twelve months": 12,
}
_DATE = r"[A-Z][a-z]+ \d{1,2}, \d{4}"
_GRAMMAR = re.compile(
    r"^What (?:was|were) (?P<label>.+?)(?: under (?P<parent>.+?))?(?: in the (?P<measure>[^?]+?) column)? "
    r"(?:for the (?P<span>three months|six months|nine months|twelve months|fiscal year|year) ended (?P<end>"
    + _DATE
    + r")"
    r"|as of (?P<instant>" + _DATE + r")|in (?:fiscal )?(?P<year>\d{4}))"
    r"(?P<rest>(?:, for [^?]+?)?(?:, as (?:restated|originally reported))?)\?$"
)
_ENTITY = re.compile(r", for (?P<entity>[^?]+?)(?=, as (?:restated|originally reported)|$)")
# A label's head noun ends its first phrase: "Debt securities", "Cost | of services", "Operating
# income | as a percentage of net sales", "Property | and equipment".
_PHRASE_END = re.compile(
    r"\s+(?:of|as|and|for|from|to|in|on|at|by|under|net|excluding|including)\b|[,(:;–—-]"
)


_POSSESSIVE = re.compile(r"\b(?:our|its|their)\s+", re.I)


def _as_spoken(label: str) -> str:
    """A label as a question says it: a phrase lifted from prose ("fair value of our senior
    notes") gets its article and loses the filer's "our" (the question names the company);
    a printed row name ("Total goodwill") is said as printed."""
    if not label[:1].islower():
        return label
    return "the " + _POSSESSIVE.sub("", label)


def _plural(label: str) -> bool:
    head = _PHRASE_END.split(label.strip(), maxsplit=1)[0].split()
    word = head[-1].lower() if head else ""
    return word.endswith("s") and not word.endswith(("ss", "us", "is", "ics"))


@dataclass(frozen=True)
class TablePage:
    """A page as this module reads it: its text (for entity names) and its tables, read once;
    the figures its prose states for a named period are one-row tables too (`prose_reader`)."""

    text: str
    tables: tuple[Table, ...]


def read_table_page(layer: dict[str, Any]) -> TablePage:
    return TablePage(
        str(layer.get("text") or ""),
        tuple(reshape_tables(read_tables(layer)))
        + tuple(read_prose_tables(layer))
        + tuple(read_korean_prose_tables(layer)),
    )


def norm_words(text: str) -> str:
    """Case, width and punctuation aside: the words a label or heading is compared by."""
    return re.sub(r"[^\w]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


def _date_text(d: date) -> str:
    return f"{MONTH_NAMES[d.month - 1]} {d.day}, {d.year}"


def _period_phrase(col: Column, language: str = "en") -> str | None:
    if language == "ko":
        return korean_period_phrase(col.months, col.end, col.year)
    if col.end is not None and col.months in _SPANS:
        return f"for the {_SPANS[col.months]} ended {_date_text(col.end)}"
    if col.end is not None and col.months is None:
        return f"as of {_date_text(col.end)}"
    if col.end is None and col.year is not None and col.months in (None, 12):
        # As the page prints it: "Fiscal 2023" is asked "in fiscal 2023", a bare "2023" "in 2023".
        return f"in fiscal {col.year}" if "fiscal" in col.header.casefold() else f"in {col.year}"
    return None


def _section(row: Row, table: Table, generic: bool) -> str:
    """What a row is asked under: its parent row, else (for a label that says little alone, or one
    the page prints under several headings) the heading the table sits under."""
    if row.parent:
        if _BASIS.search(table.subject) and norm_words(table.subject) not in norm_words(row.parent):
            # "Net sales" under "Excluding Fuel" of the "Club Segment": both say which
            return f"{table.subject}, {row.parent}"
        return row.parent
    return table.subject if generic else ""


def _own_words(row: Row) -> str:
    """A row's label as a question names it when nothing else is needed: asides left out."""
    return _ASIDE.sub("", row.label).strip() or row.label.strip()


def _label_phrase(
    row: Row, table: Table | None = None, generic: bool = False, language: str = "en"
) -> str:
    # "Trade receivables (included in accounts receivable, net)": the aside says where the row
    # sits, not what it is; a reader asks for the trade receivables.
    label = _own_words(row)
    parent = _section(row, table, generic) if table is not None else row.parent
    if (
        not parent
        or norm_words(parent) in norm_words(label)
        or norm_words(label) in norm_words(parent)
    ):
        return label  # "Employees" under "Employees and Human Capital Management" says it already
    if language == "ko":
        return korean_label_phrase(label, parent)
    if _TOTAL.match(label):
        return f"{label} {parent}"  # "Total" of "Operating Income" is total Operating Income
    return f"{label} under {parent}"


# A bare total row: asked "Total Operating Income", read back against its section (`_row_score`).
_TOTAL = re.compile(r"^(?:sub)?total$", re.I)


# A label that names no line item on its own ("Total", "Other", "Americas", "Percent change").
_GENERIC_LABEL = re.compile(
    r"^(?:(?:sub)?total|other|all other|net|corporate|percent(?:age)? change|change|"
    r"increase|decrease|[A-Za-z&.-]+|(?:balance|balances)(?:,)? (?:at |as of )?(?:the )?"
    r"(?:beginning|end) of (?:the )?(?:period|year|quarter)|(?:beginning|ending|opening|"
    r"closing) balances?|(?:as a )?(?:percentage|percent|%) of (?:total )?\w+(?: \w+)?|"
    # Korean: totals, "other", changes and shares name no line item either
    r"(?:합|소|총)\s*계|계|기\s*타|증\s*감(?:\s*률)?|비\s*율|구\s*성\s*비)$",
    re.I,
)
# A table "by segment", "by geographic area" or "attributed to the reportable segments" has
# segments for rows: "More Personal Computing" names where a figure belongs, not what it is, and is
# asked under the table's heading or not at all.
_BY_GROUP = re.compile(
    r"\b(?:by|to|among|across|between)\s+(?:(?:the|our|its|major|reportable|operating|business)\s+){0,3}"
    r"(?:segments?|divisions?|regions?|geograph\w*|countr\w*|(?:geographic\s+)?areas?)\b",
    re.I,
)


def section_measure(section: str) -> str:
    """What a section's figures are, without how its rows are grouped: "Net revenues by
    geographic region" -> "Net revenues"."""
    return _BY_GROUP.sub("", section).strip(" ,:;") or section


_COMPANY = re.compile(
    r"\b(?:inc|incorporated|corp|corporation|company|co|llc|ltd|limited|plc|n\.\s?a|l\.\s?p|lp|ag|sa|nv)\.?$",
    re.I,
)
_KO_COMPANY = re.compile(r"\(주\)|㈜|주식회사")
# A heading that states the basis of its figures: a row under "Pro Forma Financial Information" or
# "International Segment" is not the same figure as the statements' row of that name, so
# it is asked under its heading.
_BASIS = re.compile(
    r"\bpro\s+forma\b|\bsegments?\b|\bnon-gaap\b|\bdiscontinued\s+operations\b|"
    r"\bseparate\s+accounts?\b|\bparent\s+company\b|\bguarantors?\b|\bconstant\s+currency\b",
    re.I,
)
# Ranks and counts of positions are not amounts ("# of deals", "Rank"): never asked with a money unit.
_RANK = re.compile(r"#|\brank(?:ing)?\b|\bposition\b", re.I)
# A row named by a currency ("British Pounds £", "Euro") holds amounts in that currency, not the table's.
_CURRENCY_ROW = re.compile(
    r"[£€¥₩]|\b(?:pounds?|euros?|yen|won|francs?|yuan|renminbi|rupees?|pesos?|"
    r"(?:canadian|australian)\s+dollars?)\b",
    re.I,
)
# Year columns of a vintage or maturity table name when loans were made or fall due, not a period.
_NOT_PERIOD_YEARS = re.compile(
    r"\borigination\b|\bvintage\b|\bmaturit|\bpayments?\s+due\b|\bdue\s+in\b", re.I
)


def _letters(text: str) -> int:
    """Letters a label spells, a Hangul syllable counting two ("기금" names as much as "fund")."""
    return sum(2 if "\uac00" <= ch <= "\ud7a3" else 1 for ch in text if ch.isalpha())


_LEADING_PREPOSITION = re.compile(
    r"(?i)(?:within|of|for|as|at|by|from|with|in|into|on|to|under|per|than)\b(?!-)"
)


def _usable_row(row: Row) -> bool:
    # A parent that is a footnote or a sentence ("(a) For purposes of calculating ...") is a reading
    # accident, not a section: such a row cannot be named.
    # Nor is one that ends mid-phrase ("Increase in earnings per share, due to"): it introduces
    # its rows, and the question would read "... under ..., due to for the year ...".
    parent_ok = not row.parent or (
        row.parent[0].isalpha()
        and len(row.parent.split()) <= 10
        and not re.search(r"\b(?:to|of|for|by|from|with|in|and|or)\s*[:,]?$", row.parent, re.I)
    )
    return (
        _letters(row.label) >= 3
        and len(row.label) <= 90
        and " under " not in row.label
        and SECTION_WORD not in f" {row.label} "
        and "?" not in row.label
        # "QTD Down 82% Int'l.", "Consumer (14.6% of sales)", "net of tax effects of $120, $59":
        # a label that carries figures is a reading of other cells or a note, not a name
        and not re.search(r"\d\s?%|[$€£¥₩]\s?\d", f"{row.label} {row.parent}")
        # "December 31, 2020 (in millions)": a header line read as a row names no line item
        and not find_dates(row.label)
        # "(a) For purposes of calculating …" is a footnote, "PERCENTAGE)" half a header
        and not re.match(r"\(\w{1,2}\)\s", row.label)
        and row.label.count("(") == row.label.count(")")
        # "Alltel Corporation" of a debt table names an issuer, not a figure
        and not (_COMPANY.search(row.label) and not row.label.lower().startswith("total"))
        and not _KO_COMPANY.search(row.label)
        and not _RANK.search(row.label)
        # "Current" under "Auto and other", "Deferred" under "Federal": an adjective whose noun
        # (loans, tax) the table leaves unsaid cannot be asked as a figure's name
        and not re.fullmatch(r"(?i)(?:non-?)?current|deferred|performing|nonperforming", row.label)
        and not _CURRENCY_ROW.search(row.label)
        # "Within Total Operating Expenses", "Of which: ...", "as a capital lease asset": a label
        # that opens with a preposition is the tail of a wrapped line or a sentence, not a name
        and not _LEADING_PREPOSITION.match(row.label)
        and parent_ok
        and " under " not in row.parent
    )


def has_dated_table(page: TablePage, context: PageContext | None = None) -> bool:
    """Does the page hold a table with at least one column this writer can name a period for?"""
    return any(_period_phrase(c) for t in dated_page(page, context).tables for c in t.columns)


def dated_page(page: TablePage, context: PageContext | None) -> TablePage:
    """The page with its columns named relative to the filing ("당기말", "전기") dated by the
    filing's own period, and its quarters named without a date ("1Q21", "Q4 2020") by the
    filer's fiscal calendar (the filing's own quarter ends on the filing's own date, so a
    52/53-week quarter keeps its day); without the document's period they stay undated (never
    asked)."""
    if not any(
        c.relative is not None or c.quarter is not None for t in page.tables for c in t.columns
    ):
        return page
    if context is None or not context.period or not context.period_end:
        return page
    calendar = FiscalCalendar.of_period(context.period, context.period_end)

    def dated(col: Column) -> Column:
        if col.quarter is not None:
            if calendar is None:
                return col
            end = calendar.quarter_end(*col.quarter)
            own = date.fromisoformat(context.period_end)
            if context.period == f"{col.quarter[0]}-Q{col.quarter[1]}" or (
                context.period == str(col.quarter[0]) and col.quarter[1] == 4
            ):
                end = own
            return replace(col, end=end, quarter=None)
        if col.relative is None:
            return col
        found = date_relative(col.months, col.relative, context.period, context.period_end)
        if found is None:
            return col
        return replace(col, months=found[0], end=found[1], relative=None)

    return replace(
        page,
        tables=tuple(replace(t, columns=tuple(dated(c) for c in t.columns)) for t in page.tables),
    )


def _answer(cell: str, unit: str) -> str:
    """A cell as printed with its unit: "1,234 (USD millions)", "12.5%", "2,663.9" (a count)."""
    if unit == "%":
        return cell if cell.endswith("%") else f"{cell}%"
    return cell if not unit or cell.endswith("%") else f"{cell} ({unit})"


_PERIOD_WORDS = re.compile(
    r"\b(?:for\s+the\s+)?(?:(?:three|six|nine|twelve)\s+months?|(?:fiscal\s+)?years?|quarters?|"
    r"periods?|weeks?)\s+(?:ended|ending)\b|\b(?:as\s+of|at|ended|ending|fiscal|fy)\b|"
    r"\b" + MONTH_WORD + r"(?:\s+\d{1,2})?\b|"
    r"\b(?:19|20)\d{2}\b",
    re.I,
)
MAX_MEASURE_WORDS = 5


def column_measure(col: Column) -> str:
    """What a column's header says besides its period: "Fair Value" of "December 31, 2018 Fair
    Value", "U.S." of "2021 U.S."; "" when the header is the period alone."""
    text = _PERIOD_WORDS.sub(" ", col.header)
    text = re.sub(r"(?<=\w)\((?:[a-z]|\d{1,2})\)", " ", text)  # footnote marks: "mortgage(d)"
    text = re.sub(r"\(\s*[,;:]?\s*\)", " ", text)  # "(2021)" once its year is gone
    # Parentheses inside stay as printed: "Income (loss) before tax", not "Income loss before tax".
    text = re.sub(r"\s+", " ", re.sub(r"[,;:]+", " ", text)).strip(" -–")
    if text.count("(") != text.count(")"):
        text = re.sub(r"[()]", " ", text)
        text = re.sub(r"\s+", " ", text).strip(" -–")
    return text if sum(ch.isalpha() for ch in text) >= 2 else ""


def _same_period(a: Column, b: Column) -> bool:
    return (a.months, a.end, a.year) == (b.months, b.end, b.year)


def _after_report(col: Column, context: PageContext | None) -> bool:
    """A column dated after the filing's own period is a projection ("2032" of a payments schedule)."""
    if context is None or not context.period_end:
        return False
    try:
        report_year = date.fromisoformat(context.period_end).year
    except ValueError:
        return False
    year = col.year if col.end is None else effective_year(col.end)
    return year is not None and year > report_year


def _cells(
    tables: Sequence[Table], context: PageContext | None = None, language: str = "en"
) -> list[tuple[Table, Row, int, str]]:
    out = []
    for t in tables:
        if any(_RANK.search(c.header) for c in t.columns):
            continue  # a league table ranks: its "Rank" and "Share" columns are positions, not amounts
        for row in t.rows:
            if not _usable_row(row):
                continue
            for i, (cell, value) in enumerate(zip(row.cells, row.values, strict=False)):
                col = t.columns[i] if i < len(t.columns) else None
                phrase = _period_phrase(col, language) if col is not None else None
                if (
                    col is None
                    or not (cell and value is not None and phrase)
                    or _after_report(col, context)
                ):
                    continue
                if col.end is None and _NOT_PERIOD_YEARS.search(
                    " ".join([t.title, *(c.header for c in t.columns)])
                ):
                    continue
                # Sub-columns of one period (U.S. / International / Total under "2021") are asked by
                # their sub-header, when every one of them has its own; else never. Only those the
                # row prints count (a dash is printed: it says zero): an amount beside an empty
                # "% of revenue" cell is one figure.
                siblings = [
                    other
                    for j, other in enumerate(t.columns)
                    if j != i and _same_period(col, other) and j < len(row.cells) and row.cells[j]
                ]
                if siblings and language != "en":
                    continue  # the Korean grammar names no sub-column
                if siblings:
                    measure = column_measure(col)
                    names = [norm_words(column_measure(o)) for o in siblings]
                    if (
                        not measure
                        or len(measure.split()) > MAX_MEASURE_WORDS
                        or norm_words(measure) in names
                        or not all(names)
                    ):
                        continue
                    if _STATISTIC_COLUMN.match(measure):
                        continue
                    if not _whole_column(measure, context):
                        # the total of the sub-columns is the row's own figure: asked plainly
                        phrase = f"in the {measure} column {phrase}"
                out.append((t, row, i, phrase))
    return out


def _period_key(col: Column) -> date:
    return col.end or date(col.year or 1900, 12, 31)


def write_table_question(
    page: TablePage, context: PageContext | None = None, language: str = "en"
) -> WrittenQuestion | None:
    """One question about one printed cell of the page's tables (deterministic), or None; in the
    page's language ("en" or "ko")."""
    page = dated_page(page, context)
    cells = _cells(page.tables, context, language)
    if not cells:
        return None
    # A label that says little alone, or that the page prints in several tables, is asked under the
    # heading its table sits under; without one it cannot be asked.
    keys = [(norm_words(r.label), phrase) for _, r, _, phrase in cells]
    tables_of: dict[tuple[str, str], set[int]] = {}
    labelled_in: dict[str, set[int]] = {}
    for (t, _, _, _), key in zip(cells, keys, strict=False):
        tables_of.setdefault(key, set()).add(id(t))
        labelled_in.setdefault(key[0], set()).add(id(t))
    phrased = []
    for (t, r, i, phrase), key in zip(cells, keys, strict=False):
        if (
            t.subject
            and context is not None
            and context.entity
            and fuzz.ratio(norm_words(t.subject), norm_words(context.entity)) >= ENTITY_MATCH
        ):
            t = replace(t, subject="")  # a running header naming the company is no section
        generic = (
            bool(_GENERIC_LABEL.match(r.label.strip()))
            or len(tables_of[key]) > 1
            or bool(_BY_GROUP.search(t.title))
            or bool(_BASIS.search(t.subject))
            # A row the page prints in several tables (a portfolio's table beside another's, for
            # other dates) is asked under its own table's heading where there is one.
            or (len(labelled_in[key[0]]) > 1 and bool(t.subject))
        )
        if generic and not r.parent and not t.subject:
            continue
        if language == "ko" and generic and _GENERIC_LABEL.match(r.label.strip()):
            continue  # "재고자산 중 합계" is no way to ask for a total: left unasked
        if language == "ko" and t.subject:
            # A Korean table's heading names what its rows are ("예산", "재고자산"): a row is asked
            # under it ("예산 중 일반회계"), as a reader of the page would.
            generic = True
        if (
            context is not None
            and context.entity
            and fuzz.token_set_ratio(norm_words(r.label), norm_words(context.entity))
            >= ENTITY_MATCH
        ):
            continue  # a row naming the registrant (issuer of a debt table) says what, not which figure
        phrased.append((t, r, i, phrase, _label_phrase(r, t, generic, language)))
    if not phrased:
        return None
    # Prefer the page's own (latest) period.
    latest = max(_period_key(t.columns[i]) for t, _, i, _, _ in phrased)
    # A question must name one cell: a (row, period) pair printed twice on the page (a row repeated
    # in a second table, or under a section the text layer cannot tell apart) is never asked.
    asked = [(norm_words(label), phrase) for _, _, _, phrase, label in phrased]
    pool = [
        c
        for c, key in zip(phrased, asked, strict=False)
        if _period_key(c[0].columns[c[2]]) == latest and asked.count(key) == 1
    ]
    if not pool:
        return None
    first = int(sha256_text(page.text)[:12], 16) % len(pool)
    # A row asked by its own words is what a reader asks; one that needs its section ("… under
    # Relationships") or its sub-column ("… in the Min column") to be told apart is asked only
    # when the page offers nothing plainer.
    rotated = pool[first:] + pool[:first]
    rotated.sort(key=lambda c: (" column " in c[3], c[4] != _own_words(c[1])))
    for table, row, col, phrase, label in rotated:
        verb = "were" if _plural(row.label) else "was"
        unit = cell_unit(table, row, col)
        cents = "." in (row.cells[col] or "")
        if (
            cents
            and re.fullmatch(r"[A-Z]{3}", unit)
            and not names_per_share(f"{row.parent} {row.label}")
        ):
            # Dollars and cents with no scale are a per-share figure or a price; a label that does
            # not say so ("MN NRD resolution" of an EPS bridge, "PEER GROUP" of a performance
            # graph) would be asked as if it were an amount.
            continue
        question = (
            korean_question(label, phrase)
            if language == "ko"
            else f"What {verb} {_as_spoken(label)} {phrase}?"
        )
        answer = _answer(row.cells[col] or "", unit)
        # Read back as the judge will: a question whose words fit another cell of the page better
        # (a "% of revenue" column of the same year, a closer label) is not asked.
        parsed = parse_table_question(question)
        if parsed is not None and judge_table_question(parsed, page).answer == answer:
            return WrittenQuestion(question, answer, language)
    return None


def parse_table_question(question: str) -> TableQuestion | None:
    m = _GRAMMAR.match(question.strip())
    if not m:
        return parse_korean_question(question)

    def when(text: str | None) -> date | None:
        found = find_dates(text or "")
        return found[0][2] if found else None

    rest = m["rest"] or ""
    entity = _ENTITY.search(rest)
    revision = (
        "restated" if "as restated" in rest else "original" if "originally reported" in rest else ""
    )
    return TableQuestion(
        m["label"],
        m["parent"] or "",
        _SPAN_WORDS.get(m["span"] or "", None) if m["span"] else None,
        when(m["end"]) or when(m["instant"]),
        int(m["year"]) if m["year"] else None,
        entity["entity"].strip() if entity else "",
        revision,
        m["measure"] or "",
    )


def _fiscal_year_end(context: PageContext | None) -> tuple[int, int]:
    """(month, day) the page's fiscal year ends on: its annual report's period end, else Dec 31."""
    if context is not None and len(context.period) == 4 and context.period_end:
        try:
            end = date.fromisoformat(context.period_end)
            return end.month, end.day
        except ValueError:
            pass
    return 12, 31


def _column_fits(q: TableQuestion, col: Column, year_end: tuple[int, int] = (12, 31)) -> bool:
    """A year asked ("in 2022", "in fiscal 2022") is the year a twelve-month column is named after,
    and a year-ended date asked is a bare year column of that year: the same figure either way;
    a balance asked at the fiscal year's end is a bare year column of a multi-year summary.
    A sub-column asked must be the one its header names."""
    if (
        q.measure
        and fuzz.token_set_ratio(norm_words(q.measure), norm_words(column_measure(col)))
        < LABEL_MATCH
    ):
        return False
    if q.year is not None:
        if col.end is None:
            return col.year == q.year and col.months in (None, 12)
        if col.months is None:  # a balance at the fiscal year's end is that year's balance
            return (col.end.month, col.end.day) == year_end and effective_year(col.end) == q.year
        return col.months == 12 and effective_year(col.end) == q.year
    if q.end is None:
        return False
    if col.end is None:
        at_year_end = q.months is None and (q.end.month, q.end.day) == year_end
        return (
            (q.months == 12 or at_year_end)
            and col.year == effective_year(q.end)
            and col.months in (None, 12)
        )
    if {q.months, col.months} == {None, 12} and col.end == q.end:
        return True  # a balance printed under "Year Ended December 31," is the year-end balance
    return col.end == q.end and col.months == q.months


def _row_score(q: TableQuestion, row: Row, table: Table | None = None) -> float:
    """How well a row's label names the asked one (word order and punctuation aside); 0 when the
    section differs. "Total cost of revenue" is not "Total revenue": the whole label must agree.
    The section is the row's parent or the heading its table sits under."""
    if q.parent and not _parent_fits(q.parent, row, table.subject if table else ""):
        return 0.0
    score = _label_score(q.label, row.label)
    if _TOTAL.match(row.label.strip()):
        section = row.parent or (table.subject if table else "")
        if section:
            score = max(score, _label_score(q.label, f"{row.label} {section}"))
    return score if score >= LABEL_MATCH else 0.0


def _parent_fits(asked: str, row: Row, subject: str) -> bool:
    """The asked section is the row's parent, its table's heading, or both; asked as both ("Club
    Segment, Excluding Fuel"), the part after the heading must be the row's own parent."""
    printed = [p for p in (row.parent, subject, f"{subject} {row.parent}".strip()) if p]
    if max((_section_score(asked, p) for p in printed), default=0.0) < LABEL_MATCH:
        return False
    head, _, rest = asked.partition(", ")
    if subject and row.parent and rest and _section_score(head, subject) >= LABEL_MATCH:
        return _section_score(rest, row.parent) >= LABEL_MATCH
    return True


def _section_score(asked: str, printed: str) -> float:
    """How well a printed heading names the asked one. Every asked word must be printed: the
    heading "Revenues" does not name "Corporate/Other Segment, Revenues" (it is another segment's)."""
    a, b = norm_words(asked), norm_words(printed)
    if has_hangul(a) or has_hangul(b):
        return fuzz.ratio(a.replace(" ", ""), b.replace(" ", ""))
    if set(a.split()) <= set(b.split()):
        return fuzz.token_set_ratio(a, b)
    return fuzz.token_sort_ratio(a, b)


def _basis_named(q: TableQuestion, table: Table) -> bool:
    """A table under a basis heading (a segment, pro forma, separate accounts) holds that basis's
    figures, not the company's: it answers only a question that names the heading (as the writer
    always asks such rows)."""
    if not _BASIS.search(table.subject):
        return True
    return bool(q.parent) and _section_score(table.subject, q.parent) >= LABEL_MATCH


# A sub-column that is the whole of the others ("Total", "Consolidated") answers for the row.
_WHOLE_COLUMN = re.compile(r"^(?:total|consolidated|combined|all)\b", re.I)
# A sub-column of a statistic over the period ("Min", "Average" of a value-at-risk table) is no
# figure a reader asks for by its header.
_STATISTIC_COLUMN = re.compile(r"^(?:min(?:imum)?|max(?:imum)?|avg|average|high|low|median)$", re.I)


def _whole_column(measure: str, context: PageContext | None) -> bool:
    """The sub-column that is the whole of the others: "Total", "Consolidated", or the one named
    after the registrant itself (a bank's segment table ends in its own name's column)."""
    if _WHOLE_COLUMN.match(measure):
        return True
    return bool(
        context is not None
        and context.entity
        and fuzz.ratio(norm_words(measure), norm_words(context.entity)) >= ENTITY_MATCH
    )


# "Unrealized gain (loss), net" is "Unrealized gain, net" the next year: a sign word in
# parentheses says which way the figure may go, not what it is; an aside of three words or more
# ("(included in accounts receivable, net)") says where the row sits.
_SIGN_WORDS = re.compile(
    r"\s*\((?:loss|losses|gain|gains|income|expense|expenses|benefit|deficit|decrease|increase|"
    r"used\s+in|provided\s+by)\)",
    re.I,
)
# ... but "(excluding current portion)", "(before taxes)" say which figure it is: a qualifier in
# parentheses is the same qualifier after a comma ("Long-term debt, excluding current portion"),
# kept as words. ("(net of allowance of $12)" stays an aside: its amount changes every year.)
_QUALIFIER_WORDS = r"(?:excluding|including|exclusive|inclusive|before|after)\b"
_ASIDE = re.compile(r"\s*\((?!\s*" + _QUALIFIER_WORDS + r")(?:[^()\s]+\s+){2,}[^()]*\)", re.I)
_QUALIFIER = re.compile(r"\((\s*" + _QUALIFIER_WORDS + r"[^()]*)\)", re.I)


_TRAILING_MEASURE = re.compile(r"\s+(?:expense|expenses)$")
FUNCTION_WORDS = frozenset("a an and as at by for from in of on or the to total net other".split())


# "Increase (decrease) in cash", "Net decrease in cash", "Net change in cash": one line item,
# whichever way the year went; the sign is the figure's (a filer renames the row when its sign
# flips), so a change is compared as a change.
_CHANGE_WORDS = re.compile(
    r"^(?:net\s+)?(?:\(?(?:increase|decrease|change)\)?\s*/?\s*)+(?=in\b|of\b)", re.I
)


_LEADING_THE = re.compile(r"^the\s+", re.I)


def label_words(label: str) -> str:
    """A row label as compared with another: words (`norm_words`), sign words in parentheses
    aside, a change whichever way it went ("Increase (decrease) in", "Net decrease in") read as
    "change in", a filer's "our" and a leading "the" aside, and a last "expense(s)" that leaves
    two content words ("Research and development expense" is the statement's "Research and
    development"; "Interest expense" stays itself)."""
    label = _CHANGE_WORDS.sub("change ", _LEADING_THE.sub("", _POSSESSIVE.sub("", label.strip())))
    words = norm_words(_QUALIFIER.sub(r", \1", _ASIDE.sub("", _SIGN_WORDS.sub("", label))))
    bare = _TRAILING_MEASURE.sub("", words)
    content = [w for w in bare.split() if w not in FUNCTION_WORDS]
    return bare if bare != words and len(content) >= 2 else words


def _label_score(asked: str, printed: str) -> float:
    """Word order and punctuation aside; Korean labels also spacing aside, as filers space the
    same item differently ("현금및현금성자산", "현금 및 현금성자산")."""
    a, b = label_words(asked), label_words(printed)
    if has_hangul(a) or has_hangul(b):
        return fuzz.ratio(a.replace(" ", ""), b.replace(" ", ""))
    return fuzz.token_sort_ratio(a, b)


def _entity_ok(entity: str, text: str, context: PageContext | None) -> bool:
    if not entity:
        return True
    if (
        context is not None
        and context.entity
        and fuzz.ratio(norm_words(entity), norm_words(context.entity)) >= ENTITY_MATCH
    ):
        return True
    return norm_words(entity) in norm_words(text)


def judge_table_question(
    q: TableQuestion, page: TablePage, context: PageContext | None = None, restated: bool = False
) -> Judgment:
    """Does the page print the asked cell, in any column (comparatives included)? Among rows, only
    the best-matching label counts ("Total revenue" never answers for "Total cost of revenue")."""
    if not _entity_ok(q.entity, page.text, context):
        shown = context.entity if context is not None and context.entity else "another entity"
        return Judgment(False, None, f"question entity {q.entity!r} is not the page's ({shown!r})")
    if q.revision == "restated" and not restated:
        return Judgment(
            False, None, "question asks for restated figures; page shows figures as reported"
        )
    if q.revision == "original" and restated:
        return Judgment(
            False, None, "question asks for figures as originally reported; page is restated"
        )
    page = dated_page(page, context)
    year_end = _fiscal_year_end(context)
    scored = [(_row_score(q, row, t), t, row) for t in page.tables for row in t.rows]
    best = max((s for s, _, _ in scored), default=0.0)
    if best == 0:
        return Judgment(False, None, f"no row {q.label!r} on the page")
    several = ""
    for table, row in ((t, r) for s, t, r in scored if s == best):
        if not _basis_named(q, table):
            continue
        fitting = [
            i
            for i, col in enumerate(table.columns)
            if i < len(row.cells)
            and row.cells[i]
            and row.values[i] is not None
            and _column_fits(q, col, year_end)
        ]
        if len({row.values[i] for i in fitting}) > 1 and not q.measure:
            # Several sub-columns for the asked period (segments, regions side by side): the
            # question names none, so only a column that is their whole answers it.
            whole = [i for i in fitting if _whole_column(column_measure(table.columns[i]), context)]
            if len(whole) != 1:
                several = ", ".join(row.cells[i] or "" for i in fitting)
                continue
            fitting = whole
        if fitting:
            i = fitting[0]
            return Judgment(
                True,
                _answer(row.cells[i] or "", cell_unit(table, row, i)),
                f"row {row.label!r}, column {table.columns[i].header!r}: {row.cells[i]}",
            )
    if several:
        return Judgment(
            False, None, f"row {q.label!r} prints several figures for the asked period ({several})"
        )
    return Judgment(False, None, f"row {q.label!r} {ROW_WITHOUT_PERIOD}")


def same_label(asked: str, printed: str) -> bool:
    """Two labels of the same words: word order, case, punctuation, sign words and asides
    aside ("Other — net" and "Other, net"; "Net revenues" and "Revenues, net")."""
    return _label_score(asked, printed) >= LABEL_MATCH


def content_words(label: str) -> set[str]:
    """A label's words that say what it is: "Total other, net" has none, "EMEA" one."""
    return set(label_words(label).split()) - FUNCTION_WORDS


def same_item(asked: str, printed: str) -> bool:
    """Two labels that may name one line item: the same words (`_label_score`), or one's two or
    more content words all within the other's ("Diluted earnings per share" of "Diluted earnings
    per ordinary share", "Changes due to collection of expected cash flows" of "Changes in MSR
    fair value due to collection of expected cash flows"). Loose on purpose: it is only ever
    asked together with the same figure and period."""
    if same_label(asked, printed):
        return True
    a, b = content_words(asked), content_words(printed)
    small, large = sorted((a, b), key=len)
    return len(small) >= 2 and small <= large  # one word ("sales") is in too many labels


# Abbreviations filers print for a line item the statements spell out.
_ABBREVIATIONS = (
    (re.compile(r"\bEPS\b", re.I), "earnings per share"),
    (re.compile(r"\bR\s?&\s?D\b", re.I), "research and development"),
)


def _stems(label: str) -> set[str]:
    for short, spelled in _ABBREVIATIONS:
        label = short.sub(spelled, label)
    words = label_words(label).split()
    return {w[:5] for w in words if w not in FUNCTION_WORDS and len(w) > 2 and w.isalpha()}


def named_alike(asked: str, printed: str) -> bool:
    """Two labels that share the words of one measure, each word up to its ending ("Cash Flows
    from Operations" and "Net cash provided by operating activities", "Diluted EPS" and "Diluted
    earnings per share"): two such words, or the shorter label's one. Looser than `same_item`;
    asked only of a cell printing the answer's own specific figure for the asked period."""
    a, b = _stems(asked), _stems(printed)
    return bool(a and b) and len(a & b) >= min(2, len(a), len(b))


def prints_answer(
    q: TableQuestion, page: TablePage, reference: str, context: PageContext | None = None
) -> str | None:
    """Where the page prints `reference` in a row of the asked label for the asked period, under
    whatever heading ("row 'Short-term debt', column '2023': 80"), else None. The question's
    heading says where the gold prints its figure; a page printing the same figure for the same
    row and period states the same fact (the labeller's rule, not the judge's: the judge is
    never told the answer). The asked sub-column ("in the Carrying Value column") is a locator
    like the heading: the balance sheet's one column printing the same figure states it too."""
    if not _entity_ok(q.entity, page.text, context):
        return None
    page = dated_page(page, context)
    year_end = _fiscal_year_end(context)
    q = replace(q, measure="")
    for table in page.tables:
        for row in table.rows:
            same = same_item(q.label, row.label)
            if not same and not named_alike(q.label, row.label):
                continue
            for i, col in enumerate(table.columns):
                cell = row.cells[i] if i < len(row.cells) else None
                if not cell or row.values[i] is None or not _column_fits(q, col, year_end):
                    continue
                if (same or is_specific(cell)) and answers_agree(
                    _answer(cell, cell_unit(table, row, i)), reference
                ):
                    return f"row {row.label!r}, column {col.header!r}: {cell}"
    return None


def states_measure(label: str, text: str) -> bool:
    """Does a line of the page name the asked row's measure beside a figure ("Amortization expense
    for intangible assets was $4.3 billion" for "Intangible amortization expense")? What makes
    a page that prints the measure for another period, company or basis `supporting`. A label of
    fewer than two content words ("Services", "Colorado") names no measure on its own."""
    wanted = set(label_words(label).split()) - FUNCTION_WORDS
    if len(wanted) < 2:
        return False
    for line in text.splitlines():
        words = set(label_words(line).split())
        if wanted <= words and re.search(r"\d", line):
            return True
    return False


def _with_section(question: str, q: TableQuestion, section: str) -> str:
    """The question asked under `section`, when it names none and the section reads back as one."""
    section = re.sub(r"\s+", " ", section).strip(" :,")
    if q.parent or not section or len(section.split()) > 10 or not section[0].isalpha():
        return question
    words, label = set(norm_words(section).split()), set(norm_words(q.label).split())
    if words <= label or label <= words:
        return question  # "Provision for income taxes under Provision for Income Taxes" says nothing more
    m = _GRAMMAR.match(question.strip())
    if m is None:
        return question
    text = question.strip()
    out = f"{text[: m.end('label')]} under {section}{text[m.end('label') :]}"
    back = parse_table_question(out)
    return (
        out if back is not None and back.parent == section and back.label == q.label else question
    )


def qualify_table_question(question: str, values: dict[str, str]) -> str:
    """Name the gold's entity (and revision) after the period, and its section ("… under
    Aerospace Segment …") after the label when the question names none; never doubled, the
    period already asked."""
    q = parse_table_question(question)
    if q is None:
        return question
    if q.language == "ko":
        return qualify_korean_question(
            question, values.get("entity", ""), values.get("revision", "")
        )
    question = _with_section(question, q, values.get("section", ""))
    base = question.strip().rstrip("?")
    base = re.sub(r", for [^?]+?(?=, as (?:restated|originally reported)|$)", "", base)
    base = re.sub(r", as (?:restated|originally reported)$", "", base)
    entity = values.get("entity") or q.entity
    out = base + (f", for {entity}" if entity else "")
    revision = values.get("revision") or q.revision
    if revision in ("restated", "original"):
        out += ", as restated" if revision == "restated" else ", as originally reported"
    return out + "?"
