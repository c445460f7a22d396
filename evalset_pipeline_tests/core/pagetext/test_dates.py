"""The one date grammar (core/pagetext/dates.py): its forms, its parser and its named parts."""

from __future__ import annotations

import re
from datetime import date

import pytest

from evalset_pipeline.core.pagetext.dates import (
    DATE_FORMS,
    MONTH_DAY,
    MONTH_DAY_YEAR,
    MONTH_NAMES,
    MONTH_PREFIX,
    MONTH_WORD,
    MONTHS,
    NUMERIC_DATE,
    find_dates,
    numeric_date,
    parse_date,
    plain,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("December 31, 2022", date(2022, 12, 31)),
        ("Dec. 31, 2022", date(2022, 12, 31)),
        ("Sept 30, 2023", date(2023, 9, 30)),
        ("DECEMBER 31,2022", date(2022, 12, 31)),  # the comma and spaces are printed loosely
        ("June 30 2023", date(2023, 6, 30)),
        ("31 December 2022", date(2022, 12, 31)),
        ("2022-12-31", date(2022, 12, 31)),
        ("2022년 12월 31일", date(2022, 12, 31)),
        ("2022 년 1 월 1 일", date(2022, 1, 1)),
        ("2022.12.31", date(2022, 12, 31)),
        ("2022. 3. 31", date(2022, 3, 31)),
        ("for the year ended January 1, 2023 (52 weeks)", date(2023, 1, 1)),
    ],
)
def test_parse_date_reads_every_form(text, expected):
    assert parse_date(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "February 30, 2023",  # not a day of that month
        "Note 12, 2022",  # not a month word
        "December 31, 1899",  # outside the years the corpus prints
        "2022.12.311",  # a longer number, not a dotted date
        "2022-13-01",
        "revenue of 2,022",
    ],
)
def test_parse_date_rejects_what_is_not_a_date(text):
    assert parse_date(text) is None


def test_find_dates_keeps_order_and_reads_overlaps_once():
    text = "as of June 30, 2023 and 2022년 12월 31일; 2021-03-31"
    assert [d for _, _, d in find_dates(text)] == [
        date(2023, 6, 30),
        date(2022, 12, 31),
        date(2021, 3, 31),
    ]
    start, end, _ = find_dates(text)[0]
    assert text[start:end] == "June 30, 2023"


def test_month_words_cover_names_and_abbreviations_in_any_case():
    assert len(MONTH_NAMES) == 12
    assert MONTHS["sept"] == MONTHS["sep"] == MONTHS["september"] == 9
    assert set(MONTHS.values()) == set(range(1, 13))
    # case-insensitive on their own, so a case-sensitive pattern can embed them
    assert re.fullmatch(MONTH_WORD, "MAY")
    assert re.fullmatch(MONTH_WORD, "Sept.")
    assert not re.fullmatch(MONTH_WORD, "Note")
    assert re.fullmatch(MONTH_DAY, "December 31")
    assert re.fullmatch(MONTH_PREFIX + r"[a-z]*", "septem", re.I)


def test_plain_forms_compose_into_a_pattern_with_its_own_groups():
    any_date = "|".join(plain(form) for form in DATE_FORMS)
    pattern = re.compile(rf"(?P<start>{any_date}) to (?P<end>{any_date})")
    m = pattern.search("from 2023년 1월 1일 to December 31, 2023")
    assert m is not None
    assert (parse_date(m["start"]), parse_date(m["end"])) == (date(2023, 1, 1), date(2023, 12, 31))
    assert re.compile(MONTH_DAY_YEAR).groupindex.keys() == {"mon", "d", "y"}
    assert not re.compile(plain(MONTH_DAY_YEAR)).groupindex


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2023.01.01", date(2023, 1, 1)),
        ("2023. 1. 1.", date(2023, 1, 1)),
        ("2023년 12월 31일", date(2023, 12, 31)),
        ("2023-06-30", date(2023, 6, 30)),
        ("2023년 6.30", date(2023, 6, 30)),  # separators mixed, as Korean statements print them
    ],
)
def test_numeric_date_reads_korean_statement_dates(text, expected):
    m = re.fullmatch(NUMERIC_DATE, text)
    assert m is not None
    assert numeric_date(m.group(0)) == expected


def test_a_numeric_dates_day_is_never_the_start_of_a_year():
    # "2022년 1월 2021년": a month and the next column's year, not January 20
    assert re.search(NUMERIC_DATE, "2022년 1월 2021년 1월~12월") is None


def test_numeric_date_rejects_an_impossible_date():
    assert numeric_date("2023.02.30") is None
    assert numeric_date("2023.02") is None
