"""Judge: a table question read back against a page's tables. A page answers when one of its
tables has a row whose label matches (loosely: case, punctuation, word order) and a column of the
asked kind and date, any column, comparatives included; the entity named in a qualifier must be
the page's, as the page prints it or as its document's registrant (`PageContext`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from rapidfuzz import fuzz

from evalset_pipeline.core.judging.base import Judgment, PageContext
from evalset_pipeline.core.pagetext.digits import is_specific
from evalset_pipeline.core.pagetext.fiscal import effective_year
from evalset_pipeline.core.pagetext.korean import months_back
from evalset_pipeline.core.pagetext.subjects import names_subject, same_subject, split_code
from evalset_pipeline.core.pagetext.text import has_hangul
from evalset_pipeline.core.reader.answers import answers_agree
from evalset_pipeline.core.reader.korean_columns import korean_header_measure
from evalset_pipeline.core.reader.korean_labels import printed_movement
from evalset_pipeline.core.reader.korean_questions import korean_column_reading
from evalset_pipeline.core.reader.registrant_names import names_registrant
from evalset_pipeline.core.reader.row_labels import (
    LABEL_MATCH,
    _label_score,
    named_alike,
    norm_words,
    same_item,
)
from evalset_pipeline.core.reader.row_measures import measure_label, own_words
from evalset_pipeline.core.reader.table_captions import column_kind
from evalset_pipeline.core.reader.table_cells import is_closing_line
from evalset_pipeline.core.reader.table_page import (
    _BASIS,
    _TOTAL,
    ROW_WITHOUT_PERIOD,
    SEVERAL_FIGURES,
    TablePage,
    cell_answer,
    column_measure,
    dated_page,
    holds_positions,
)
from evalset_pipeline.core.reader.table_question import TableQuestion
from evalset_pipeline.core.reader.table_reader import Column, Row, Table


def _fiscal_year_end(context: PageContext | None) -> tuple[int, int]:
    """(month, day) the page's fiscal year ends on: its annual report's period end, else Dec 31."""
    if context is not None and len(context.period) == 4 and context.period_end:
        try:
            end = date.fromisoformat(context.period_end)
            return end.month, end.day
        except ValueError:
            pass
    return 12, 31


def _printed_measure(q: TableQuestion, col: Column) -> str:
    """What a column's header names besides its period, read in the question's language."""
    if q.language == "ko":
        return korean_header_measure(col.header) or column_measure(col)
    return column_measure(col)


def _flow_of(q: TableQuestion, col: Column, row: Row | None, table: Table | None) -> bool:
    """Is the cell a change over the column's span though `q` asks a balance? A Korean table of
    changes ("영업활동 자산·부채의 증감") prints "매입채무" under "<당기>": its change over the year,
    which no balance question asks; only a roll-forward's closing line, or a position built up
    to the date ("누적공사수익 | 유보금", `holds_positions`), is a balance in a span column."""
    return (
        q.language == "ko"
        and row is not None
        and table is not None
        and q.months is None
        and col.months is not None
        and not is_closing_line(row.label)
        and not holds_positions(table, col)
    )


def _column_fits(
    q: TableQuestion,
    col: Column,
    year_end: tuple[int, int] = (12, 31),
    row: Row | None = None,
    table: Table | None = None,
) -> bool:
    """A year asked ("in 2022", "in fiscal 2022") is the year a twelve-month column is named after,
    and a year-ended date asked is a bare year column of that year: the same figure either way;
    a balance asked at the fiscal year's end is a bare year column of a multi-year summary, and
    a balance asked at a date is any column ending on it. A sub-column asked must be the one its header names."""
    asked_kind, printed_kind = column_kind(q.measure), column_kind(column_measure(col))
    if asked_kind and printed_kind:
        if asked_kind != printed_kind:  # "result" asked of an "Actual" column is the same kind
            return False
    elif (
        q.measure
        and fuzz.token_set_ratio(norm_words(q.measure), norm_words(_printed_measure(q, col)))
        < LABEL_MATCH
    ):
        return False
    # A target answers only a question that asks for the target, and a question asking for one
    # is answered by no other column: the year's result is a different fact. (The Korean grammar
    # names no kind yet: its "2024년 예산" columns are judged as before.)
    if q.language != "ko" and (printed_kind == "target") != (asked_kind == "target"):
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
    if None in (q.months, col.months) and col.end == q.end and not _flow_of(q, col, row, table):
        # A balance printed under "Year Ended December 31," or "Six months ended June 30," (a
        # roll-forward's ending balance) is the balance at that date, and the reverse: the
        # figure the judge then compares tells a balance from a flow.
        return True
    return col.end == q.end and col.months == q.months


def _row_score(
    q: TableQuestion, row: Row, table: Table | None = None, outline_section: str = ""
) -> float:
    """How well a row's label names the asked one (word order and punctuation aside); 0 when the
    section differs. "Total cost of revenue" is not "Total revenue": the whole label must agree.
    The section is the row's parent or the heading its table sits under."""
    if q.parent and not _parent_fits(
        q.parent, row, table.subject if table else "", outline_section
    ):
        return 0.0
    score = _label_score(q.label, row.label)
    if (
        score < LABEL_MATCH
        and table is not None
        and row.label
        and norm_words(own_words(row)) in norm_words(q.label)  # (cheap: most rows end here)
    ):
        # "revenue from South Korea" asked of the row "South Korea" of a revenue table
        composed = measure_label(row, table)
        if composed:
            score = max(score, _label_score(q.label, composed))
    if _TOTAL.match(row.label.strip()):
        section = row.parent or (table.subject if table else "")
        if section:
            score = max(score, _label_score(q.label, f"{row.label} {section}"))
    return score if score >= LABEL_MATCH else 0.0


def _parent_fits(asked: str, row: Row, subject: str, outline_section: str = "") -> bool:
    """The asked section is the row's parent, its table's heading, or both, or the heading the
    page sits under in its PDF's outline (a segment's pages print only "Selected metrics");
    asked as both ("Club Segment, Excluding Fuel"), the part after the heading must be the row's
    own parent."""
    printed = [
        p for p in (row.parent, subject, f"{subject} {row.parent}".strip(), outline_section) if p
    ]
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
    return names_registrant(measure, context)


def _entity_ok(entity: str, text: str, context: PageContext | None) -> bool:
    if not entity or names_registrant(entity, context):
        return True
    return norm_words(entity) in norm_words(text)


def _subject_ok(q: TableQuestion, text: str, context: PageContext | None) -> bool:
    """A question naming a subject (a budget program, a brief's topic) is answered only by its
    document's pages: sheets of one layout print the same rows for every program. A page whose
    document has no subject must print the subject's name."""
    if not q.subject:
        return True
    if context is not None and context.subject:
        return same_subject(q.subject, context.subject)
    return names_subject(text, q.subject)


def _basis_ok(q: TableQuestion, context: PageContext | None) -> bool:
    """A question naming the statements' basis is not answered by the other basis's page (the
    separate balance sheet's cash is not the consolidated one's, even where the two agree); a
    page whose basis is unknown is judged on its table."""
    return not (q.basis and context is not None and context.basis and context.basis != q.basis)


_SPOKEN_COLUMN = re.compile(r"^the (?P<measure>[a-z][a-z' -]{2,40}?) of (?P<label>.+)$")


def column_reading(q: TableQuestion) -> TableQuestion | None:
    """ "the carrying value of long-term debt" as the row "long-term debt" in the "carrying
    value" column (the writer's spoken sub-column); None when the label is not of that form."""
    if q.measure:
        return None
    if q.language == "ko":  # "토지의 장부금액": the row "토지" in the "장부금액" column
        split = korean_column_reading(q.label)
        return replace(q, label=split[0], measure=split[1]) if split else None
    m = _SPOKEN_COLUMN.match(q.label)
    if m is None:
        return None
    return replace(q, label=m["label"], measure=m["measure"])


def possessive_readings(q: TableQuestion) -> list[TableQuestion]:
    """A Korean "A의 B" read every way a writer says it: row A in sub-column B ("토지의 장부금액"),
    row B in sub-column A (a roll-forward's "토지의 증가" under asset-class columns), row B under
    section A ("리스부채의 기초": the movement of what its table's heading names), row A under
    section B ("양우종합건설의 채무보증": a company's row of the guarantee table)."""
    column = column_reading(q)
    if q.language != "ko" or column is None:
        return [column] if column is not None else []
    a, b = column.label, printed_movement(column.measure)  # "기초 잔액": the line "기초"
    column = replace(column, measure=b)
    out = [column, replace(q, label=b, measure=a)]
    if not q.parent:
        out += [replace(q, label=b, parent=a), replace(q, label=a, parent=b)]
    return out


CLOSING_LINE = {"ko": "기말", "en": "Ending balance"}


def balance_readings(q: TableQuestion) -> list[TableQuestion]:
    """A balance asked, read as the other ways a filing prints it: "리스부채의 기초 잔액" of the
    three months to March 31 is the balance at the December 31 before ("리스부채" in a column at
    that date, or the closing line of a roll-forward of 리스부채 ending then); "리스부채의 기말
    잔액", "리스부채" or "Total goodwill" at a date is a roll-forward's closing line ("기말",
    "Balance at June 30,") at that date. Read by `prints_answer` only: a figure must agree too."""
    if q.end is None or q.language not in CLOSING_LINE:
        return []
    column = column_reading(q) if q.language == "ko" else None
    line = printed_movement(column.measure) if column is not None else ""
    if column is not None and line in ("기초", "기말") and q.months:
        account, at = column.label, q.end
        if line == "기초":
            at = months_back(q.end, q.months)  # the balance the span opens with
    elif q.months is None and not q.measure and column is None:
        account, at = re.sub(r"^total\s+", "", q.label, flags=re.I), q.end
    else:
        return []
    bare = replace(q, months=None, end=at, measure="", year=None)
    closing = replace(bare, label=CLOSING_LINE[q.language], parent=account)
    return [replace(bare, label=account, parent=q.parent), closing] if line else [closing]


# "the retail/LTC segment’s generic dispensing rate": a label naming the segment it belongs to
_SEGMENT_OWNER = re.compile(r"([\w/&.\- ]+?)\s+segment(?:['’]s)?\b", re.I)


def segment_owner(label: str) -> str | None:
    """The segment a label names as its owner ("retail/ltc" of "the retail/LTC segment’s generic
    dispensing rate"), None when it names none."""
    m = _SEGMENT_OWNER.search(label)
    if m is None:
        return None
    return re.sub(r"^(?:the|our)\s+", "", m.group(1).strip(), flags=re.I).casefold()


def other_segment(asked: str, printed: str) -> bool:
    """Do both labels name a segment, and not the same one ("the retail/LTC segment’s generic
    dispensing rate" against "pharmacy Services segment’s total generic dispensing rate": one
    figure may be both segments', but the page states the other's)?"""
    a, b = segment_owner(asked), segment_owner(printed)
    return a is not None and b is not None and a != b


def _closing_of(q: TableQuestion, table: Table, row: Row, above: str = "") -> bool:
    """Is `row` the closing line of a roll-forward of what `q` (a closing-line reading) asks?
    A roll-forward printed without a heading of its own continues the table above it (`above`,
    its subject: "Goodwill" by segment, then its changes)."""
    held = [p for p in (row.parent, table.subject or above) if p]
    return is_closing_line(row.label) and any(
        _section_score(q.parent, p) >= LABEL_MATCH for p in held
    )


def judge_table_question(
    q: TableQuestion, page: TablePage, context: PageContext | None = None, restated: bool = False
) -> Judgment:
    """The page's answer to `q`: read as asked, else (no row of the whole label) as a row in a
    sub-column said in words ("the fair value of …"), or a Korean "A의 B" read any way a writer
    says it (`possessive_readings`)."""
    judged = _judge_as_asked(q, page, context, restated)
    if judged.answers:
        return judged
    # None answers: the page says most of the question under the reading that finds its row
    # ("토지의 취득원가" is no row, but row "토지" in the "취득원가" column is, for another
    # period): "no row" would call the same table of another filing unrelated.
    found_row = None
    for reading in [*possessive_readings(q), *subject_row_readings(q)]:
        other = _judge_as_asked(reading, page, context, restated)
        if other.answers:
            return other
        if found_row is None and not judged.reason.endswith(ROW_WITHOUT_PERIOD):
            if other.reason.endswith(ROW_WITHOUT_PERIOD) or SEVERAL_FIGURES in other.reason:
                found_row = other
    return found_row or judged


def subject_row_readings(q: TableQuestion) -> list[TableQuestion]:
    """ "‘청년일자리창출지원(1043-301)’ 사업의 2024년 확정 예산": the program's own row, under the
    heading "예산", in the "확정" sub-column (`table_questions._korean_asked`); every split of
    the label into a sub-column and a heading, the sub-column first. None but for a Korean
    question naming a subject and no section or sub-column."""
    if q.language != "ko" or not q.subject or q.parent or q.measure:
        return []
    words = q.label.split()
    row = split_code(q.subject)[0]
    return [
        replace(q, label=row, measure=" ".join(words[:k]), parent=" ".join(words[k:]))
        for k in range(1, len(words) + 1)
    ]


def _judge_as_asked(
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
    if not _basis_ok(q, context):
        shown = context.basis if context is not None else ""
        return Judgment(False, None, f"question asks for the {q.basis} statements; page is {shown}")
    if not _subject_ok(q, page.text, context):
        shown = context.subject if context is not None and context.subject else "another subject"
        return Judgment(
            False, None, f"question subject {q.subject!r} is not the page's ({shown!r})"
        )
    page = dated_page(page, context)
    year_end = _fiscal_year_end(context)
    outlined = context.section if context is not None else ""
    scored = [(_row_score(q, row, t, outlined), t, row) for t in page.tables for row in t.rows]
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
            and _column_fits(q, col, year_end, row, table)
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
                cell_answer(table, row, i, q.language),
                f"row {row.label!r}, column {table.columns[i].header!r}: {row.cells[i]}",
            )
    if several:
        return Judgment(False, None, f"row {q.label!r} {SEVERAL_FIGURES} ({several})")
    return Judgment(False, None, f"row {q.label!r} {ROW_WITHOUT_PERIOD}")


def prints_answer(
    q: TableQuestion, page: TablePage, reference: str, context: PageContext | None = None
) -> str | None:
    """`_prints_as_asked`, else for the row of a sub-column said in words ("the fair value of …",
    `column_reading`)."""
    found = _prints_as_asked(q, page, reference, context)
    for spoken in [*possessive_readings(q), *balance_readings(q)] if found is None else []:
        found = _prints_as_asked(spoken, page, reference, context)
        if found is not None:
            break
    return found


def _prints_as_asked(
    q: TableQuestion, page: TablePage, reference: str, context: PageContext | None = None
) -> str | None:
    """Where the page prints `reference` in a row of the asked label for the asked period, under
    whatever heading ("row 'Short-term debt', column '2023': 80"), else None. The question's
    heading says where the gold prints its figure; a page printing the same figure for the same
    row and period states the same fact (the labeller's rule, not the judge's: the judge is
    never told the answer). The asked sub-column ("in the Carrying Value column") is a locator
    like the heading: the balance sheet's one column printing the same figure states it too."""
    if (
        not _entity_ok(q.entity, page.text, context)
        or not _basis_ok(q, context)
        or not _subject_ok(q, page.text, context)
    ):
        return None
    page = dated_page(page, context)
    year_end = _fiscal_year_end(context)
    # The sub-column is a locator, but a target or result it names is part of the fact.
    q = replace(q, measure=q.measure if column_kind(q.measure) else "")
    closing = q.label == CLOSING_LINE.get(q.language) and bool(q.parent)
    topic = ""  # the subject of the last table that had one
    for table in page.tables:
        above, topic = topic, table.subject or topic
        for row in table.rows:
            if closing:
                if not _closing_of(q, table, row, above):
                    continue
                same = True
            else:
                same = same_item(q.label, row.label)
            if not same and (
                not named_alike(q.label, row.label) or other_segment(q.label, row.label)
            ):
                continue
            for i, col in enumerate(table.columns):
                cell = row.cells[i] if i < len(row.cells) else None
                if (
                    not cell
                    or row.values[i] is None
                    or not _column_fits(q, col, year_end, row, table)
                ):
                    continue
                if (same or is_specific(cell)) and answers_agree(
                    cell_answer(table, row, i, q.language),
                    reference,
                ):
                    return f"row {row.label!r}, column {col.header!r}: {cell}"
    return None
