"""Questions about one cell of a real financial table, for the offline `textlayer` backend.

Writer: from the page's tables (`table_reader`), one row and one dated column, chosen
deterministically from the page's content; the question names the row (with its section when the
row is a sub-item) and the column's period as the page prints it, and the answer is the cell as
printed with the table's unit:

    What was Total revenue for the year ended December 1, 2017?  ->  7,301,505 (USD thousands)
    What were Total assets as of December 31, 2022?               ->  46,455 (USD millions)

It never computes (no sums, no shares), and a row's unit is `cell_unit`'s: a money row never
reads as "employees", a share count never as money.

Judge: the same grammar read back (`table_judge`), over the page's tables (`table_page`), with
row labels compared as `row_labels` compares them.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from rapidfuzz import fuzz

from evalset_pipeline.core.hashing import sha256_text
from evalset_pipeline.core.judging.base import PageContext, WrittenQuestion
from evalset_pipeline.core.pagetext.dates import MONTH_DAY_YEAR, MONTH_NAMES, find_dates, plain
from evalset_pipeline.core.pagetext.fiscal import effective_year
from evalset_pipeline.core.pagetext.korean import COUNTERS
from evalset_pipeline.core.pagetext.subjects import names_subject
from evalset_pipeline.core.pagetext.text import has_hangul, is_hangul_syllable
from evalset_pipeline.core.reader.korean_columns import (
    korean_header_measure,
    unsaid_measure,
)
from evalset_pipeline.core.reader.korean_labels import (
    is_movement,
    is_party,
    korean_section,
    merged_columns,
    movement_label,
    names_account,
    party_name,
    related_party_table,
    spoken_label,
    wrapped_half,
)
from evalset_pipeline.core.reader.korean_questions import (
    SECTION_WORD,
    korean_column_label,
    korean_instant_phrase,
    korean_label_phrase,
    korean_party_label,
    korean_question,
    parse_korean_question,
    qualify_korean_question,
)
from evalset_pipeline.core.reader.lead_ins import heading_of
from evalset_pipeline.core.reader.measure_words import BY_GROUP, is_name, names_measure
from evalset_pipeline.core.reader.measure_words import section_measure as section_measure
from evalset_pipeline.core.reader.registrant_names import names_registrant
from evalset_pipeline.core.reader.row_labels import (
    _POSSESSIVE,
    label_words,
    named_alike,
    norm_words,
    same_item,
)
from evalset_pipeline.core.reader.row_labels import FUNCTION_WORDS as FUNCTION_WORDS
from evalset_pipeline.core.reader.row_labels import content_words as content_words
from evalset_pipeline.core.reader.row_labels import same_label as same_label
from evalset_pipeline.core.reader.row_measures import measure_label
from evalset_pipeline.core.reader.row_measures import own_words as _own_words
from evalset_pipeline.core.reader.table_captions import column_kind
from evalset_pipeline.core.reader.table_judge import (
    _STATISTIC_COLUMN,
    _whole_column,
    judge_table_question,
    prints_answer,
)
from evalset_pipeline.core.reader.table_page import (
    _BASIS,
    _TOTAL,
    MAX_MEASURE_WORDS,
    ROW_WITHOUT_PERIOD,
    TablePage,
    _period_phrase,
    cell_answer,
    column_measure,
    dated_page,
    has_dated_table,
    holds_positions,
    read_table_page,
)
from evalset_pipeline.core.reader.table_question import TableQuestion
from evalset_pipeline.core.reader.table_reader import Column, Row, Table, cell_unit, names_per_share
from evalset_pipeline.core.reader.table_units import cell_counter

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


_SPAN_WORDS = {
    "three months": 3,
    "six months": 6,
    "nine months": 9,
    "year": 12,
    "fiscal year": 12,
    "twelve months": 12,
}


_DATE = plain(MONTH_DAY_YEAR)


_GRAMMAR = re.compile(
    r"^What (?:was|were) (?P<label>.+?)(?: under (?P<parent>.+?))?(?: in the (?P<measure>[^?]+?) column)? "
    r"(?:for the (?P<span>three months|six months|nine months|twelve months|fiscal year|year) ended (?P<end>"
    + _DATE
    + r")"
    r"|as of (?P<instant>" + _DATE + r")|in (?P<month>" + "|".join(MONTH_NAMES) + r") "
    r"(?P<month_year>\d{4})|in (?:fiscal )?(?P<year>\d{4}))"
    r"(?P<rest>(?:, for [^?]+?)?(?:, as (?:restated|originally reported))?)\?$"
)


# A target or result of a fiscal year ("FY 2014 Target"), asked as a reader asks it: "What was the
# fiscal 2014 target for Percent of claims processed within 60 days?" The kind word is the
# column's measure read back (`table_captions.column_kind`).
_KIND_GRAMMAR = re.compile(
    r"^What was the (?P<year_words>(?:fiscal )?(?P<year>\d{4})) (?P<measure>[a-z]+) for "
    r"(?P<label>.+?)(?: under (?P<parent>.+?))?"
    r"(?P<rest>(?:, for [^?]+?)?(?:, as (?:restated|originally reported))?)\?$"
)
_KIND_PHRASE = re.compile(r"^in the (?P<measure>\w+) column in (?P<year>(?:fiscal )?\d{4})$")


_COLUMN_PHRASE = re.compile(r"^in the (?P<measure>.+?) column (?P<period>.+)$")
MAX_SPOKEN_MEASURE = (
    4  # "Carrying Value", "Owned Square Footage": said as "the carrying value of …"
)


def _column_question(label: str, phrase: str) -> str | None:
    """A sub-column asked as a reader says it: "in the Carrying Value column as of …" of
    "Long-term debt" as "What was the carrying value of long-term debt as of …?" (the judge reads
    "the <measure> of <row>" back as that row in that column: `table_judge.column_reading`).
    None when the phrase names no sub-column, a long one (a header), or one that names no measure
    (a segment's or a place's column)."""
    m = _COLUMN_PHRASE.match(phrase)
    if m is None or len(m["measure"].split()) > MAX_SPOKEN_MEASURE:
        return None
    measure = m["measure"]
    if not names_measure(measure):
        return None  # a segment's or a place's column ("Environmental Technologies", "U.S.")
    return f"What was the {measure.lower()} of {_mid_sentence(label)} {m['period']}?"


def _mid_sentence(label: str) -> str:
    """A label said mid-sentence: "Long-term debt …" as "long-term debt …", "EMEA" as printed."""
    words = label.split()
    if words and words[0][:1].isupper() and not words[0].isupper():
        if len(words) == 1 or words[1][:1].islower() or not words[1][:1].isalpha():
            return label[:1].lower() + label[1:]
    return label


def _kind_question(label: str, phrase: str) -> str | None:
    """ "in the Target column in fiscal 2014" of `label` as "What was the fiscal 2014 target for
    <label>?"; None for any other phrase."""
    m = _KIND_PHRASE.match(phrase)
    if m is None:
        return None
    kind = column_kind(m["measure"])
    if not kind:
        return None
    word = m["measure"].lower() if kind == "target" else "result"
    words = label.split()
    if len(words) > 1 and words[0].istitle() and words[1][:1].islower():
        label = label[:1].lower() + label[1:]  # "Percent of claims …" is said mid-sentence
    return f"What was the {m['year']} {word} for {label}?"


_ENTITY = re.compile(r", for (?P<entity>[^?]+?)(?=, as (?:restated|originally reported)|$)")


# A label's head noun ends its first phrase: "Debt securities", "Cost | of services", "Operating
# income | as a percentage of net sales", "Property | and equipment".
_PHRASE_END = re.compile(
    r"\s+(?:of|as|and|for|from|to|in|on|at|by|under|net|excluding|including)\b|[,(:;–—-]"
)


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


def _section(row: Row, table: Table, generic: bool) -> str:
    """What a row is asked under: its parent row, else (for a label that says little alone, or one
    the page prints under several headings) the heading the table sits under."""
    if row.parent:
        if _BASIS.search(table.subject) and norm_words(table.subject) not in norm_words(row.parent):
            # "Net sales" under "Excluding Fuel" of the "Club Segment": both say which
            return f"{table.subject}, {row.parent}"
        return row.parent
    return table.subject if generic else ""


def _label_phrase(
    row: Row,
    table: Table | None = None,
    generic: bool = False,
    language: str = "en",
    label: str = "",
) -> str:
    """The row as the question names it: `label` (else its own words) and its section. "Trade
    receivables (included in accounts receivable, net)": the aside says where the row sits, not
    what it is; a reader asks for the trade receivables. A lead-in sentence kept as the section
    is asked by its subject (`lead_ins`)."""
    label = label or _own_words(row)
    parent = heading_of(_section(row, table, generic) if table is not None else row.parent)
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


_COMPANY = re.compile(
    r"\b(?:inc|incorporated|corp|corporation|company|co|llc|ltd|limited|plc|n\.\s?a|l\.\s?p|lp|ag|sa|nv)\.?$",
    re.I,
)


_KO_COMPANY = re.compile(r"\(주\)|㈜|주식회사")


# A Korean total column ("합계", "계") is the sum of its period's sub-columns, not a measure.
_KO_TOTAL = re.compile(r"^(?:(?:합|소|총)\s*계|계)$")


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
    return sum(2 if is_hangul_syllable(ch) else 1 for ch in text if ch.isalpha())


_LEADING_PREPOSITION = re.compile(
    r"(?i)(?:within|of|for|as|at|by|from|with|in|into|on|to|under|per|than)\b(?!-)"
)


_TRAILING_FUNCTION_WORD = re.compile(
    r"(?i)\s(?:to\s+be|of|to|for|with|the|and|or|by|from|in|on|at|as|that|which)$"
)
_MEASURE_NUMBER = re.compile(r"^\d{1,2}\s?\.\s?\d{1,2}(?:\s?[A-Z]\b|\s+[a-z])")


# A one-measure table names its measure in full ("PERFORMANCE MEASURE: Percent of required
# actions cited in reports that are addressed within prescribed timeframes"): such a name is the
# question's subject however long, where a row label that long elsewhere is a sentence.
MAX_LABEL = 90
MAX_CAPTION_LABEL = 200


def _caption_measure(table: Table, row: Row) -> bool:
    """The table's only row, whose label its caption prints: the name of the table's measure."""
    return (
        len(table.rows) == 1
        and len(row.label) <= MAX_CAPTION_LABEL
        and norm_words(row.label) in norm_words(table.title)
    )


def _usable_row(row: Row, table: Table | None = None) -> bool:
    # A parent that is a footnote or a sentence ("(a) For purposes of calculating ...") is a reading
    # accident, not a section: such a row cannot be named.
    # Nor is one that ends mid-phrase ("Increase in earnings per share, due to"): it introduces
    # its rows, and the question would read "... under ..., due to for the year ...".
    parent_ok = not row.parent or (
        row.parent[0].isalpha()
        and len(row.parent.split()) <= 10
        and not re.search(r"\b(?:to|of|for|by|from|with|in|and|or)\s*[:,]?$", row.parent, re.I)
        # "… Fiscal Year 2019 Annual Performance Report": the running title of the document
        and not re.search(r"(?i)\b(?:fiscal\s+year|FY)\s*\d{4}\b.*\breport$", row.parent)
    )
    return (
        _letters(row.label) >= 3
        and (len(row.label) <= MAX_LABEL or (table is not None and _caption_measure(table, row)))
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
        # "Percent of investigations determined to be": the first line of a wrapped label
        and not _TRAILING_FUNCTION_WORD.search(row.label)
        # "1.03A participating in corporate": a measure's number before the tail of its
        # wrapped name (a table of measures whose names wrap beside their numbers)
        and not _MEASURE_NUMBER.match(row.label)
        and parent_ok
        and " under " not in row.parent
    )


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
            if not _usable_row(row, t):
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
                # A sub-column printing the same figure is no other answer: a first quarter's
                # "3개월" and "누적" columns are one figure, as the judge reads them (asked once).
                if any(
                    j < i and _same_period(col, t.columns[j]) and row.values[j] == value
                    for j in range(min(len(t.columns), len(row.values)))
                ):
                    continue
                siblings = [
                    other
                    for j, other in enumerate(t.columns)
                    if j != i
                    and _same_period(col, other)
                    and j < len(row.cells)
                    and row.cells[j]
                    and row.values[j] != value
                ]
                if siblings and language == "ko":
                    # "토지의 장부금액": a sub-column asked by its measure, when every sub-column of
                    # the period names its own; the total column is the others' sum, no measure.
                    measure = korean_header_measure(col.header)
                    names = [korean_header_measure(o.header) for o in siblings]
                    if (
                        not measure
                        or _KO_TOTAL.match(measure)
                        or measure in names
                        or not all(names)
                    ):
                        continue
                    out.append((t, row, i, f"in the {measure} column {phrase}"))
                    continue
                if siblings and language != "en":
                    continue  # no other grammar names a sub-column
                if language == "ko" and unsaid_measure(col.header):
                    continue  # one sub-measure of the row ("… 근로자 전체"), too long to say
                if language == "ko":
                    # "보증금액 당분기말": the column's own measure, said with the row, never dropped
                    # for the row's plain figure (a company's row keeps its own reading:
                    # "양우종합건설에 대한 보증금액"). Over a span ("평가충당금 당기") the figure is
                    # the account's movement, which the header does not say: "상품의 평가충당금"
                    # would read as the balance (178 asked, the balance is 185): not asked.
                    measure = korean_header_measure(col.header)
                    if (
                        measure
                        and names_account(measure)
                        and not _KO_TOTAL.match(measure)
                        and measure not in _KO_PLAIN
                        and not is_party(spoken_label(row.label))
                    ):
                        if col.months is not None:
                            continue
                        out.append((t, row, i, f"in the {measure} column {phrase}"))
                        continue
                kind = column_measure(col)
                if column_kind(kind) and language == "en":
                    # "FY 2014 Target": a target is not the year's result, so the question says
                    # which, with or without a "Results" column of the same year beside it.
                    out.append((t, row, i, f"in the {kind} column {phrase}"))
                    continue
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


_KO_RATE = re.compile(r"[율률]$")
_COLLATERAL = re.compile(r"담\s*보\s*(?:제\s*공|설\s*정)")
# A table heading that restricts its rows to a subset: "for <those> with/that/whose … follows:"
_RESTRICTED_POPULATION = re.compile(
    r"\bfor\s+(?!the\s+(?:fiscal\s+)?(?:years?|periods?|quarters?|(?:three|six|nine|twelve)\s+months)\b)"
    r"[^.:;]{0,80}?\b(?:with|that|whose|which)\b[^.:;]*?\b(?:follows?|as\s+follows|below)\s*:?\s*$",
    re.I,
)
_INDUSTRY = re.compile(r"시장\s*(?:규모|전망|동향|현황)|수요\s*(?:전망|현황|동향)")
_PRINTED_AMOUNT = re.compile(r"\d{1,3}(?:,\d{3})+")
# A column header's word that says only that its cells are amounts: no measure of its own.
_KO_PLAIN = ("금액", "잔액", "내용", "구분")  # (`korean_header_measure` joins "금 액")
_EQUITY_STATEMENT = re.compile(r"자\s*본\s*변\s*동\s*표")


def _changes_in_equity(table: Table) -> bool:
    """A statement of changes in equity, by its title (or the title its header cells run in)."""
    texts = (table.title, *(c.header for c in table.columns))
    return any(_EQUITY_STATEMENT.search(text) for text in texts)


# A sub-column of the whole ("전체 주주수", "전체 임직원") beside the rows' own: not the row's figure
_WHOLE = re.compile(r"^전\s*체(?:\s|$)")


def _korean_row(t: Table, r: Row, i: int, phrase: str) -> tuple[Table, Row, str, str] | None:
    """A Korean row as a reader of the filing asks it: (table, row, period phrase, the label
    said with its measure, or "" to ask it as the row reads); None when nothing names what the
    row's figure is. The sections printed around it lose their debris (`korean_section`); a
    roll-forward's movement ("기초", "증가") is asked of what moves ("리스부채의 기초", "토지의
    증가"), a company's row by its figure's measure ("양우종합건설의 보증금액")."""
    t = replace(t, subject=korean_section(t.subject))
    r = replace(r, parent=korean_section(r.parent))
    label = spoken_label(r.label)
    if merged_columns(label):
        return None  # a name, its business and its country read as one label
    if _PRINTED_AMOUNT.search(label):
        return None  # "BL USD 109,276,928.90": another column's amount read into the label
    if wrapped_half(label):
        return None  # "지분상품 및": the first line of a wrapped name
    if r.deduction:
        return None  # "차감: 현금및현금성자산 (267,105)": the cash taken away, not the cash
    if merged_columns(r.parent):
        return None  # "Bulace Investments Ltd. 공동기업": a name and its relationship as one
    if _COLLATERAL.search(f"{t.title} {t.subject}") and not is_party(label):
        # "자기주식 26,600" of a table of pledged assets is the amount pledged over the stock,
        # not the stock; the asset's category sits in a cell merged down its rows
        return None
    column = _COLUMN_PHRASE.match(phrase)
    period = column["period"] if column else phrase
    measure = column["measure"] if column else ""
    if measure and _WHOLE.match(measure):
        return None  # "소액주주 | 전체 주주수": every shareholder's count, not the row's
    if measure and len(measure.split()) > 1:
        # "소액주주의 소액 주주수": the row already says what the sub-column's first word says
        own = [w for w in measure.split() if w not in label]
        if own and own != measure.split():
            measure = " ".join(own)
            phrase = f"in the {measure} column {period}"
    if measure and i < len(t.columns) and holds_positions(t, t.columns[i]):
        # "누적공사수익 | 누적발생원가 | 유보금" under "<당분기>": what the contracts have built up
        # to the quarter's end, asked at that date ("… 현재"), never over the quarter
        period = korean_instant_phrase(period)
        phrase = f"in the {measure} column {period}"
    if measure and is_movement(measure) and not names_account(label):
        return None  # "호반의 기초": a balance of a company's, of what the page leaves unsaid
    if measure and not r.parent and any(is_movement(c.header) for c in t.columns):
        # Columns "기초 | 증가 | 기말" of rows that are accounts: what moves is the account itself
        # or something held against it (its allowance, its accumulated depreciation), which only
        # the table's heading says ("대손충당금 중 매출채권의 기말"); a table continued without its
        # heading says neither.
        if not t.subject:
            return None
        if norm_words(t.subject) not in norm_words(label):
            return t, replace(r, parent=t.subject), phrase, ""
    if is_movement(label):
        if measure:
            return t, r, period, movement_label(measure, label)
        if r.parent and not names_account(r.parent):
            return None  # "호반" over "기초": whose balance of what, the page leaves unsaid
        what = r.parent or t.subject
        if not what:
            return None
        return t, replace(r, parent=""), period, movement_label(what, label)
    related = related_party_table(t.title, t.subject, *(c.header for c in t.columns))
    if related and r.parent and not names_account(r.parent):
        # "파인스톤리조트 | 대손충당금": a party's account, the party's name merged down its rows
        return None
    if related and not measure and not names_account(label):
        return None  # "호반 40,000": the account sits in a column of its own, unread
    if measure and not names_account(label) and related:
        # "호반에 대한 기타비용": a related party's row holds the filer's figure with it (its sales
        # to it, its receivable from it), never the party's own ("호반의 기타비용"); the party's
        # name tells the row, the relationship group above it ("<기타특수관계자>") need not
        party = party_name(label)
        return (
            replace(t, subject=""),
            replace(r, parent=""),
            period,
            korean_party_label(party, measure),
        )
    if is_party(label):
        if measure:
            # a sub-column's measure may be the party's own (a subsidiary's summary: "…의 자본")
            # or held toward it: said as the column reads ("…의 자본")
            return t, r, phrase, ""
        header = korean_header_measure(t.columns[i].header) if i < len(t.columns) else ""
        if header and names_account(header):
            return t, r, period, korean_party_label(label, header)
        if r.parent and names_account(r.parent):
            return t, r, phrase, ""  # "일반단기차입금 중 Vietcombank 외": its lender's share
        if t.subject and not r.parent:
            return t, r, period, korean_party_label(label, t.subject)
        return None
    if _KO_RATE.search(label) and not r.parent and t.subject:
        # "할인율" alone is any of a filing's discount rates: the actuarial assumption's is asked
        # under its table's heading ("보험수리적가정 중 할인율")
        if norm_words(t.subject) not in norm_words(label):
            return t, replace(r, label=label, parent=t.subject), phrase, ""
    if " " not in label and not (names_account(label) or r.parent or t.subject or measure):
        return None  # "북미" alone names a place, not a figure
    return t, replace(r, label=label), phrase, ""


def _period_key(col: Column) -> date:
    return col.end or date(col.year or 1900, 12, 31)


def write_table_question(
    page: TablePage, context: PageContext | None = None, language: str = "en"
) -> WrittenQuestion | None:
    """One question about one printed cell of the page's tables (deterministic), or None; in the
    page's language ("en" or "ko")."""
    page = dated_page(page, context)
    if language == "ko":
        # A Korean statement of changes in equity heads its columns with components (자본금, 이익
        # 잉여금) and dates its rows by blocks ("2021.01.01 (전기초)" … "(전분기말)") that often run
        # over two pages: the heading's period is no column's, so none of its cells is asked.
        page = replace(page, tables=tuple(t for t in page.tables if not _changes_in_equity(t)))
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
        if t.subject and names_registrant(t.subject, context):
            t = replace(t, subject="")  # a running header naming the company is no section
        if language == "en" and _RESTRICTED_POPULATION.search(t.title):
            # "Information for pension plans with a projected benefit obligation in excess of
            # plan assets follows:": the rows are that subset's (15,328 of a 15,369 obligation),
            # which a question by the row's label alone would ask as the whole
            continue
        if language == "ko" and _INDUSTRY.search(f"{t.subject} {t.title}"):
            if context is None or not context.subject:
                # "세계 전력선시장 규모": a filing's account of its industry; the figure is the
                # market's, which "<company>의 …" (the only way a filing's question names it)
                # would ask as the company's own
                continue
        if language == "ko":
            korean = _korean_row(t, r, i, phrase)
            if korean is None:
                continue  # a row that names no measure, and nothing on the page names it
            t, r, phrase, spoken = korean
            if spoken:
                phrased.append((t, r, i, phrase, spoken))
                continue
        generic = (
            bool(_GENERIC_LABEL.match(r.label.strip()))
            or len(tables_of[key]) > 1
            or bool(BY_GROUP.search(t.title))
            or bool(_BASIS.search(t.subject))
            # A row the page prints in several tables (a portfolio's table beside another's, for
            # other dates) is asked under its own table's heading where there is one.
            or (len(labelled_in[key[0]]) > 1 and bool(t.subject))
        )
        composed = ""
        if generic and not r.parent and not t.subject:
            # No heading to ask it under: a name row of a table "by region" (or one the page
            # prints in several tables) is told apart by the measure its table names, if any.
            if language != "en" or (
                _GENERIC_LABEL.match(r.label.strip()) and not BY_GROUP.search(t.title)
            ):
                continue
            composed = measure_label(r, t)
            if not composed:
                continue
        if language == "ko" and generic and _GENERIC_LABEL.match(r.label.strip()):
            continue  # "재고자산 중 합계" is no way to ask for a total: left unasked
        if language == "ko" and t.subject:
            # A Korean table's heading names what its rows are ("예산", "재고자산"): a row is asked
            # under it ("예산 중 일반회계"), as a reader of the page would.
            generic = True
        if names_registrant(r.label, context, fuzz.token_set_ratio):
            continue  # a row naming the registrant (issuer of a debt table) says what, not which figure
        label = _label_phrase(r, t, generic, language, composed)
        if (
            not composed
            and language == "en"
            and is_name(_own_words(r))
            and not names_measure(f"{label} {phrase}")
        ):
            # "What was South Korea in 2022?" names no measure: a name row is asked by the one
            # its table names ("revenue from South Korea"), or, its table naming none, not at all.
            composed = measure_label(r, t)
            if not composed:
                continue
            label = _label_phrase(r, t, generic, language, composed)
        phrased.append((t, r, i, phrase, label))
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
        # a composed label's number is its measure's ("revenues from …"), else the row's
        verb = (
            "were" if _plural(row.label if label.startswith(_own_words(row)) else label) else "was"
        )
        unit = cell_unit(table, row, col)
        cents = "." in (row.cells[col] or "")
        if (
            cents
            and re.fullmatch(r"[A-Z]{3}", unit)
            and not names_per_share(f"{row.parent} {row.label}")
            and not re.search(r"\bper\b", f"{row.parent} {row.label}", re.I)
        ):
            # Dollars and cents with no scale are a per-share figure, a price or a figure per
            # something ("revenue per paying membership"); a label that does not say so ("MN NRD
            # resolution" of an EPS bridge) would be asked as if it were an amount.
            continue
        column = _COLUMN_PHRASE.match(phrase)
        # a count in the counter its column or unit line names ("직원수", "(단위 : 명)") is asked
        # "몇 명"; a figure with a sign or decimals is asked "얼마" and answered with its counter
        counted = cell_counter(table, row, col) if language == "ko" else ""
        counter = (
            counted
            if counted in COUNTERS and not unit and re.fullmatch(r"[\d,]+", row.cells[col] or "")
            else ""
        )
        question = (
            _korean_asked(label, phrase, column, counter, context)
            if language == "ko"
            else _kind_question(label, phrase)
            or _column_question(label, phrase)
            or f"What {verb} {_as_spoken(label)} {phrase}?"
        )
        if language == "en" and has_hangul(question):
            continue  # a Korean row asked in English tests translation, not retrieval
        answer = cell_answer(table, row, col, language)
        # Read back as the judge will: a question whose words fit another cell of the page better
        # (a "% of revenue" column of the same year, a closer label) is not asked.
        parsed = parse_table_question(question)
        # the subject a question names is the document's (the page need not print it)
        told = (
            PageContext(subject=context.subject, subject_kind=context.subject_kind)
            if parsed is not None and parsed.subject and context is not None
            else None
        )
        if parsed is not None and judge_table_question(parsed, page, told).answer == answer:
            if language == "ko" and context is not None and context.basis:
                # A DART filing prints its consolidated and separate statements and notes with
                # the same rows: a question that names no basis is two questions, whether or not
                # the other basis's page is ever pooled beside it.
                question = qualify_table_question(question, {"basis": context.basis})
            return WrittenQuestion(question, answer, language)
    return None


def _korean_asked(
    label: str,
    phrase: str,
    column: re.Match[str] | None,
    counter: str,
    context: PageContext | None,
) -> str:
    """The Korean question of a cell, naming the document's subject where its label does not: a
    budget sheet's rows are every program's ("‘청년일자리창출지원(1043-301)’ 사업의 2024년
    사업규모 중 사업비는 …"). The program's own row asked in a sub-column is its budget of that
    kind, as a Korean reader says it: "… 사업의 2024년 확정 예산은 …"."""
    subject = context.subject if context is not None else ""
    kind = context.subject_kind if subject and context is not None else ""
    said = "" if subject and names_subject(label, subject) else subject
    if column is None:
        return korean_question(label, phrase, counter, said, kind)
    parent, sep, own = label.rpartition(SECTION_WORD)
    if subject and sep and names_subject(own, subject) and not names_subject(parent, subject):
        return korean_question(
            f"{column['measure']} {parent}", column["period"], counter, subject, kind
        )
    return korean_question(
        korean_column_label(label, column["measure"]), column["period"], counter, said, kind
    )


def parse_table_question(question: str) -> TableQuestion | None:
    m = _GRAMMAR.match(question.strip()) or _KIND_GRAMMAR.match(question.strip())
    if not m:
        return parse_korean_question(question)

    def when(text: str | None) -> date | None:
        found = find_dates(text or "")
        return found[0][2] if found else None

    groups = m.groupdict()
    rest = m["rest"] or ""
    entity = _ENTITY.search(rest)
    revision = (
        "restated" if "as restated" in rest else "original" if "originally reported" in rest else ""
    )
    months = _SPAN_WORDS.get(groups.get("span") or "", None) if groups.get("span") else None
    end = when(groups.get("end")) or when(groups.get("instant"))
    if groups.get("month"):  # "in November 2023": the month's figure, dated by its last day
        year, number = int(groups["month_year"]), MONTH_NAMES.index(groups["month"]) + 1
        months, end = 1, date(year, number, calendar.monthrange(year, number)[1])
    return TableQuestion(
        label=m["label"],
        parent=m["parent"] or "",
        months=months,
        end=end,
        year=int(m["year"]) if m["year"] else None,
        entity=entity["entity"].strip() if entity else "",
        revision=revision,
        measure=m["measure"] or "",
    )


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
    section = heading_of(re.sub(r"\s+", " ", section).strip(" :,"))
    if q.parent or not section or len(section.split()) > 10 or not section[0].isalpha():
        return question
    words, label = set(norm_words(section).split()), set(norm_words(q.label).split())
    if words <= label or label <= words:
        return question  # "Provision for income taxes under Provision for Income Taxes" says nothing more
    m = _GRAMMAR.match(question.strip()) or _KIND_GRAMMAR.match(question.strip())
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
            question, values.get("entity", ""), values.get("revision", ""), values.get("basis", "")
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
