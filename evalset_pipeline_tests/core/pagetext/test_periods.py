"""Period parsing: every spelling the corpus (and real filings) use collapses to one canonical value."""

from __future__ import annotations

import pytest

from evalset_pipeline.core.pagetext.periods import (
    display_period,
    find_periods,
    normalize_period,
    parse_periods,
)
from evalset_pipeline.samplekit.sample_corpus import PERIOD_SPELLINGS, corpus_periods


@pytest.mark.parametrize(
    "text, expected",
    [
        ("FY24 Q3", "2024-Q3"),
        ("FY2024 Q3", "2024-Q3"),
        ("Q3 FY24", "2024-Q3"),
        ("Q3 FY2024", "2024-Q3"),
        ("Q3 2024", "2024-Q3"),
        ("3Q24", "2024-Q3"),
        ("3Q 2024", "2024-Q3"),
        ("Q3'24", "2024-Q3"),
        ("Q3 '24", "2024-Q3"),
        ("third quarter 2024", "2024-Q3"),
        ("Third quarter of fiscal 2024", "2024-Q3"),
        ("quarter ended September 30, 2024", "2024-Q3"),
        ("Quarter ended Sept. 30, 2024", "2024-Q3"),
        ("three months ended 30 September 2024", "2024-Q3"),
        ("quarter ended August 31, 2024", "2024-Q3"),  # the phrase says quarter: any day counts
        ("2024-09-30", "2024-Q3"),
        ("2024-12-31", "2024-Q4"),
        ("2024-Q3", "2024-Q3"),
        ("2024년 3분기", "2024-Q3"),
        ("2024년 3Q", "2024-Q3"),
        ("2024년 9월 30일", "2024-Q3"),
        ("FY2024", "2024"),
        ("FY24", "2024"),
        ("fiscal year 2024", "2024"),
        ("2024년", "2024"),
        ("H1 2024", "2024-H1"),
        ("2024년 하반기", "2024-H2"),
    ],
)
def test_recognised_spellings(text: str, expected: str) -> None:
    assert parse_periods(text) == [expected]
    assert normalize_period(text) == expected


def test_bare_date_counts_only_on_a_quarter_end_day() -> None:
    assert parse_periods("as of 2024-09-15") == []
    assert parse_periods("as of 2024-09-30") == ["2024-Q3"]


def test_order_of_appearance_and_dedup() -> None:
    text = "Acme FY24 Q3 - Quarter ended September 30, 2024 versus Q3 2023; outlook for FY2025; 2024년 3분기"
    assert parse_periods(text) == ["2024-Q3", "2023-Q3", "2025"]


def test_longest_reading_wins_over_parts() -> None:
    # "FY24 Q3" is one quarter, not the year 2024 plus a quarter
    assert [m.canonical for m in find_periods("FY24 Q3 and 2024년 3분기")] == ["2024-Q3", "2024-Q3"]


@pytest.mark.parametrize(
    "text",
    [
        "Revenue rose 4.2% to 1,234.5 USD m",
        "Page 3 of 10",
        "2024 employees",
        "Q5 2024",
        "Table 2024-13-45",
        "",
    ],
)
def test_no_false_positives(text: str) -> None:
    assert parse_periods(text) == []


def test_normalize_period() -> None:
    assert normalize_period("2024-Q3") == "2024-Q3"
    assert normalize_period("2024") == "2024"  # canonical year passes through
    assert normalize_period(" Q3 2024. ") == "2024-Q3"
    assert normalize_period("revenue in Q3 2024") is None  # not a single value
    assert normalize_period("Q3 2024 and Q4 2024") is None
    assert normalize_period("hello") is None


@pytest.mark.parametrize("canonical", ["2024-Q1", "2023-Q4", "2024", "2024-H1", "2024-H2"])
@pytest.mark.parametrize("language", ["en", "ko"])
def test_display_round_trips(canonical: str, language: str) -> None:
    shown = display_period(canonical, language)
    assert parse_periods(shown) == [canonical]
    assert normalize_period(shown) == canonical


def test_display_forms() -> None:
    assert display_period("2024-Q3", "en") == "Q3 2024"
    assert display_period("2024-Q3", "ko") == "2024년 3분기"
    assert display_period("2024", "en") == "FY2024"
    assert display_period("2024", "ko") == "2024년"
    with pytest.raises(ValueError):
        display_period("soon", "en")


def test_every_spelling_the_generator_writes_round_trips() -> None:
    for canonical in corpus_periods(8):
        for style, spell in PERIOD_SPELLINGS.items():
            written = spell(canonical)
            assert normalize_period(written) == canonical, (style, written)
            assert parse_periods(f"Header | {written} | Acme Group") == [canonical], (
                style,
                written,
            )
