"""Fiscal calendars date a quarter that a column names without its date ("1Q21", "Q1 FY23")."""

from datetime import date

import pytest

from evalset_pipeline.core.pagetext.fiscal import FiscalCalendar, named_quarter


@pytest.mark.parametrize(
    ("header", "named"),
    [
        ("1Q21", (2021, 1)),
        ("4Q 2020", (2020, 4)),
        ("Q4 2020", (2020, 4)),
        ("Q1 FY23", (2023, 1)),
        ("Q2'24", (2024, 2)),
        ("FY2023 Q2", (2023, 2)),
    ],
)
def test_compact_quarter_headers(header: str, named: tuple[int, int]) -> None:
    assert named_quarter(header) == named


@pytest.mark.parametrize("header", ["2021", "Q5 2021", "1Q21 vs 1Q20", "Three months ended", "Q"])
def test_other_headers_name_no_quarter(header: str) -> None:
    assert named_quarter(header) is None


def test_a_quarter_ends_where_the_filers_year_puts_it() -> None:
    calendar_year = FiscalCalendar()
    assert calendar_year.quarter_end(2021, 1) == date(2021, 3, 31)
    assert calendar_year.quarter_end(2020, 4) == date(2020, 12, 31)
    june = FiscalCalendar(6)  # Q1 of FY2023 of a June year is the summer of 2022
    assert june.quarter_end(2023, 1) == date(2022, 9, 30)
    assert june.quarter_end(2023, 4) == date(2023, 6, 30)
    january = FiscalCalendar(1)  # a retailer's year ends in January: its Q3 ends in October
    assert january.quarter_end(2020, 3) == date(2019, 10, 31)


def test_the_calendar_a_documents_own_period_says() -> None:
    assert FiscalCalendar.of_period("2023", "2023-06-30") == FiscalCalendar(6)
    assert FiscalCalendar.of_period("2021-Q1", "2021-03-31") == FiscalCalendar(12)
    assert FiscalCalendar.of_period("2023-Q1", "2022-10-01") == FiscalCalendar(6)  # 52/53 weeks
    assert FiscalCalendar.of_period("2023-H1", "2023-06-30") is None
    assert FiscalCalendar.of_period("2023", "") is None
