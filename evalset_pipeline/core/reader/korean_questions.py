"""Korean one-cell questions: how `table_questions` words, reads back and qualifies a question
about a cell of a Korean table. The grammar is the English one's, in Korean word order:

    2023년 12월 31일로 종료되는 회계연도 매출액은 얼마였습니까?        -> 258,935,494 (KRW millions)
    2024년 9월 30일로 종료되는 3개월간 영업이익은 얼마였습니까?
    2023년 12월 31일 현재 유동자산 중 현금및현금성자산은 얼마였습니까?
    2023년 일반회계는 얼마였습니까?
    2024년 3월 31일 현재 토지의 장부금액은 얼마였습니까?           (a sub-column: "장부금액")

Qualified, the entity leads (Korean names the owner first), the statements' basis comes before
the label, as a Korean reader of a filing says it, and a revision follows the label:
"한빛전자의 2023년 … 연결 기준 매출액(재작성 기준)은 얼마였습니까?".

A document whose sheets share one layout with other programs' (a budget program sheet, an issue
brief) is named by its subject, quoted, with the noun naming it, after its owner:
"고용노동부 ‘청년일자리창출지원(1043-301)’ 사업의 2024년 사업규모 중 사업비는 얼마였습니까?";
the program's own row in a sub-column is its budget of that kind: "… 사업의 2024년 확정 예산은 …".
"""

from __future__ import annotations

import re
from datetime import date

from evalset_pipeline.core.pagetext.dates import KOREAN_DATE, numeric_date, plain
from evalset_pipeline.core.pagetext.korean import has_batchim, topic_particle
from evalset_pipeline.core.reader.korean_labels import MOVEMENT_JOINER, movement_label
from evalset_pipeline.core.reader.table_question import TableQuestion

__all__ = [
    "korean_period_phrase",
    "korean_instant_phrase",
    "korean_label_phrase",
    "korean_column_label",
    "korean_column_reading",
    "korean_question",
    "korean_subject_phrase",
    "parse_korean_question",
    "qualify_korean_question",
]

SECTION_WORD = " 중 "  # "유동자산 중 현금및현금성자산": a sub-item under its section
_REVISION = {"restated": "재작성 기준", "original": "최초 공시 기준"}
_BASIS = {"consolidated": "연결 기준", "separate": "별도 기준"}  # metadata.statement_basis's bases
_DATE = plain(KOREAN_DATE)
# the nouns a subject is named by (`metadata.document_subject`: a form's 사업명/과제명, a cover title)
SUBJECT_KINDS = ("사업", "과제", "보고서")
_QUOTES = "‘’"
_GRAMMAR = re.compile(
    r"^(?:(?:(?P<owner>[^‘’]+?) )?‘(?P<subject>[^‘’]+)’ (?P<kind>"
    + "|".join(SUBJECT_KINDS)
    + r")의 "
    r"|(?P<entity>[^‘’]+?)의 )?"
    r"(?P<period>(?P<end>" + _DATE + r")로 종료되는 (?:(?P<span>[369])개월간|회계연도)"
    r"|(?P<instant>" + _DATE + r") 현재"
    r"|(?P<year>(?:19|20)\d{2})년) "
    r"(?:(?P<basis>" + "|".join(_BASIS.values()) + r") )?"
    r"(?:(?P<parent>.+?)" + SECTION_WORD + r")?(?P<label>.+?)"
    r"(?:\((?P<revision>재작성 기준|최초 공시 기준)\))?(?:은|는) "
    r"(?P<ask>얼마였습니까|몇 (?P<counter>\S+?)(?:이었|였)습니까)\?$"
)


def _date_text(d: date) -> str:
    return f"{d.year}년 {d.month}월 {d.day}일"


def korean_period_phrase(months: int | None, end: date | None, year: int | None) -> str | None:
    if end is not None and months == 12:
        return f"{_date_text(end)}로 종료되는 회계연도"
    if end is not None and months in (3, 6, 9):
        return f"{_date_text(end)}로 종료되는 {months}개월간"
    if end is not None and months is None:
        return f"{_date_text(end)} 현재"
    if end is None and year is not None and months in (None, 12):
        return f"{year}년"
    return None


_SPAN_PHRASE = re.compile(r"^(?P<end>" + _DATE + r")로 종료되는 (?:[369]개월간|회계연도)$")


def korean_instant_phrase(period_phrase: str) -> str:
    """A span's phrase as the instant it ends ("2022년 3월 31일 현재"); any other unchanged."""
    m = _SPAN_PHRASE.match(period_phrase)
    return f"{m['end']} 현재" if m else period_phrase


def korean_label_phrase(label: str, parent: str) -> str:
    return f"{parent}{SECTION_WORD}{label}" if parent else label


# "토지의 장부금액": the row, then the sub-column it is asked in. What follows the last "의 " is read
# back as the sub-column only when no row bears the whole label (`table_judge.column_reading`).
COLUMN_WORD = MOVEMENT_JOINER  # one joiner for a sub-column and a movement
MAX_COLUMN_WORDS = 3


def korean_column_label(label_phrase: str, measure: str) -> str:
    """A row asked in one of its period's sub-columns: "토지의 장부금액", "매출채권의 유동";
    a balance column of a roll-forward as a balance ("매출채권의 기말 잔액")."""
    return movement_label(label_phrase, measure)


# "양우종합건설에 대한 채무보증": a figure the company holds toward a party (its guarantee for it,
# its receivable from it, its expense with it); "양우종합건설의 채무보증" would be the party's own.
PARTY_WORD = "에 대한 "


def korean_party_label(party: str, measure: str) -> str:
    """A party's row asked with the measure its column or caption names: "호반에 대한 기타비용"."""
    return f"{party}{PARTY_WORD}{measure}"


def korean_column_reading(label: str) -> tuple[str, str] | None:
    """(row, sub-column) of a label said as `korean_column_label` or `korean_party_label` says
    it; None otherwise."""
    row, sep, measure = label.rpartition(PARTY_WORD)
    if not sep:
        row, sep, measure = label.rpartition(COLUMN_WORD)
    if not sep or not row or not measure or len(measure.split()) > MAX_COLUMN_WORDS:
        return None
    if re.search(r"\d", measure):
        return None
    return row, measure


def korean_ask(counter: str = "") -> str:
    """How a question asks its figure: "얼마였습니까" of an amount, "몇 명이었습니까" of a count."""
    if not counter:
        return "얼마였습니까"
    return f"몇 {counter}{'이었' if has_batchim(counter) else '였'}습니까"


def korean_subject_phrase(subject: str, kind: str, entity: str = "") -> str:
    """ "고용노동부 ‘청년일자리창출지원(1043-301)’ 사업의 ": the owner, then the quoted subject and
    its noun; "" without a subject (quotes in a name would not read back: none then)."""
    if not subject or kind not in SUBJECT_KINDS or any(q in subject for q in _QUOTES):
        return ""
    return f"{entity + ' ' if entity else ''}‘{subject}’ {kind}의 "


def korean_question(
    label_phrase: str,
    period_phrase: str,
    counter: str = "",
    subject: str = "",
    kind: str = "",
    entity: str = "",
) -> str:
    # "영업이익(손실)" is read to its last syllable, "손실": `topic_particle` looks past the ")"
    ask = korean_ask(counter)
    asked = f"{period_phrase} {label_phrase}{topic_particle(label_phrase)} {ask}?"
    lead = korean_subject_phrase(subject, kind, entity)
    if lead:
        return lead + asked
    return f"{entity}의 {asked}" if entity else asked


def parse_korean_question(question: str) -> TableQuestion | None:
    m = _GRAMMAR.match(question.strip())
    if not m:
        return None

    end = numeric_date(m["end"] or m["instant"] or "")
    months = int(m["span"]) if m["span"] else (12 if m["end"] else None)
    return TableQuestion(
        m["label"],
        m["parent"] or "",
        months,
        end,
        int(m["year"]) if m["year"] else None,
        (m["entity"] or m["owner"] or "").strip(),
        _revision_of(m["revision"]),
        language="ko",
        basis=_basis_of(m["basis"]),
        subject=m["subject"] or "",
        subject_kind=m["kind"] or "",
    )


def qualify_korean_question(question: str, entity: str, revision: str, basis: str = "") -> str:
    """The entity before the period (before the subject, where the question names one), the basis
    before the label and the revision after it; never doubled."""
    m = _GRAMMAR.match(question.strip())
    if not m:
        return question
    entity = entity or (m["entity"] or m["owner"] or "").strip()
    revision = revision or _revision_of(m["revision"])
    basis = basis or _basis_of(m["basis"])
    label = korean_label_phrase(m["label"], m["parent"] or "")
    if revision in _REVISION:
        label += f"({_REVISION[revision]})"
    if basis in _BASIS:
        label = f"{_BASIS[basis]} {label}"
    return korean_question(
        label, m["period"], m["counter"] or "", m["subject"] or "", m["kind"] or "", entity
    )


def _revision_of(text: str | None) -> str:
    return next((k for k, v in _REVISION.items() if v == text), "")


def _basis_of(text: str | None) -> str:
    return next((k for k, v in _BASIS.items() if v == text), "")
