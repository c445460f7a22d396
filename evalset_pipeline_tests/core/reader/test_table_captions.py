"""Tables dated and named by their captions: performance tables of targets and results by fiscal
year, and one-measure tables whose only row is named by the caption above it."""

from __future__ import annotations

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.reader.table_captions import (
    caption_measure,
    column_kind,
    without_unprinted,
)
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline_tests.core.reader.test_table_reader import centred, draw_layer, row

AGENCY = PageContext(
    "Office of Example Management", "annual performance report", "2014", "2014-09-30"
)

MEASURE = "Percent of retirement claims processed within 60 days"


def _targets_and_results(tmp_path):
    return read_table_page(
        draw_layer(
            [
                [("l", 50, "Performance results by fiscal year")],
                centred("FY 2013", "FY 2014", "FY 2014"),
                centred("Results", "Results", "Target"),
                row(MEASURE, "61%", "79%", "90%"),
            ],
            tmp_path,
        )
    )


def test_a_target_column_is_asked_as_the_target_and_never_answers_the_years_result(tmp_path):
    page = _targets_and_results(tmp_path)
    written = write_table_question(page, AGENCY)
    assert written is not None
    # the question names the kind of figure it asks, and the answer is that column's
    kind = "target" if written.answer == "90%" else "result"
    assert written.question == f"What was the fiscal 2014 {kind} for percent of {MEASURE[11:]}?"
    assert written.answer in ("90%", "79%")
    target = parse_table_question(f"What was the fiscal 2014 target for {MEASURE}?")
    result = parse_table_question(f"What was the fiscal 2014 result for {MEASURE}?")
    older = parse_table_question(f"What was the fiscal 2013 result for {MEASURE}?")
    plain = parse_table_question(f"What was {MEASURE} in fiscal 2014?")
    assert target is not None and result is not None and plain is not None
    assert judge_table_question(target, page, AGENCY).answer == "90%"
    assert judge_table_question(result, page, AGENCY).answer == "79%"
    assert older is not None and judge_table_question(older, page, AGENCY).answer == "61%"
    # the older grammar, naming the column, reads the same cells
    named = parse_table_question(f"What was {MEASURE} in the Target column in fiscal 2014?")
    assert named is not None and judge_table_question(named, page, AGENCY).answer == "90%"
    # a question that names no target is the year's result, never its target
    assert judge_table_question(plain, page, AGENCY).answer == "79%"


def test_a_target_alone_for_its_year_is_still_asked_as_the_target(tmp_path):
    page = read_table_page(
        draw_layer(
            [
                centred("FY 2012", "FY 2013", "FY 2014"),
                centred("Results", "Results", "Target"),
                row(MEASURE, "58%", "61%", "90%"),
            ],
            tmp_path,
        )
    )
    written = write_table_question(page, AGENCY)
    assert written is not None
    assert written.question == f"What was the fiscal 2014 target for percent of {MEASURE[11:]}?"
    assert written.answer == "90%"
    plain = parse_table_question(f"What was {MEASURE} in fiscal 2014?")
    assert plain is not None and judge_table_question(plain, page, AGENCY).answer is None


def test_a_one_measure_table_without_a_label_column_is_named_by_its_caption(tmp_path):
    # The caption names the measure; the only row starts with a year the measure was not
    # reported ("N/A*"), which is no name.
    page = read_table_page(
        draw_layer(
            [
                [("l", 50, "Table 6.01C")],
                [("l", 50, "PERFORMANCE MEASURE: Percent of agencies that meet their hiring goal")],
                centred("FY 2011", "FY 2012", "FY 2013", "FY 2014"),
                centred("Results", "Results", "Results", "Results"),
                row("N/A*", "91%", "83%", "100%", "77%"),
            ],
            tmp_path,
        )
    )
    [table] = [t for t in page.tables if t.rows]
    assert [r.label for r in table.rows if any(v is not None for v in r.values)] == [
        "Percent of agencies that meet their hiring goal"
    ]
    written = write_table_question(page, AGENCY)
    assert written is not None
    assert written.question == (
        "What was the fiscal 2014 result for percent of agencies that meet their hiring goal?"
    )
    assert written.answer == "77%"


def test_a_one_measure_tables_long_name_is_asked_in_full(tmp_path):
    # A measure's full name runs past the length a row label may have elsewhere (there it would
    # be a sentence); as the table's only row, printed in its caption, it is the subject.
    long_name = (
        "Percent of required actions cited in evaluation reports that agencies address within "
        "prescribed timeframes"
    )
    assert len(long_name) > 90
    page = read_table_page(
        draw_layer(
            [
                [("l", 50, "Table 8.02C")],
                [("l", 50, f"PERFORMANCE MEASURE: {long_name}")],
                centred("FY 2013", "FY 2014", "FY 2014"),
                centred("Results", "Results", "Target"),
                row("N/A*", "91%", "88%", "80%"),
            ],
            tmp_path,
        )
    )
    written = write_table_question(page, AGENCY)
    assert written is not None
    assert long_name[11:] in written.question
    asked = parse_table_question(written.question)
    assert asked is not None and judge_table_question(asked, page, AGENCY).answer == written.answer


def test_caption_and_kind_words():
    assert caption_measure("Table 6.01C PERFORMANCE MEASURE: Number of users of the dashboard") == (
        "Number of users of the dashboard"
    )
    assert caption_measure("TABLE 1 .5 A") == ""
    assert without_unprinted("Desktop availability N/A* N/A") == "Desktop availability"
    assert without_unprinted("N/A*") == ""
    assert [column_kind(w) for w in ("Target", "Results", "Actual", "Plan", "Fair Value")] == [
        "target",
        "result",
        "result",
        "target",
        "",
    ]


def test_the_evidence_index_keeps_a_target_apart_from_the_years_result():
    from evalset_pipeline.core.evidence.index import period_keys
    from evalset_pipeline.core.reader.table_page import is_target_header

    assert is_target_header("FY 2014 Target") and not is_target_header("FY 2014 Results")
    result = set(period_keys(None, None, 2014))
    target = set(period_keys(None, None, 2014, is_target_header("FY 2014 Target")))
    assert result and target and not result & target


def test_target_and_actual_columns_take_the_one_year_their_caption_names(tmp_path):
    page = read_table_page(
        draw_layer(
            [
                [("l", 50, "Performance results, fiscal year 2014")],
                centred("Target", "Actual"),
                row("Number of audits completed", "120", "131"),
            ],
            tmp_path,
        )
    )
    assert [(c.header, c.year) for c in page.tables[0].columns] == [
        ("Target", 2014),
        ("Actual", 2014),
    ]
    written = write_table_question(page, AGENCY)
    assert written is not None
    kind = "target" if written.answer == "120" else "result"
    assert written.question == f"What was the 2014 {kind} for number of audits completed?"
    assert written.answer in ("120", "131")
    target = parse_table_question("What was the 2014 target for number of audits completed?")
    assert target is not None and judge_table_question(target, page, AGENCY).answer == "120"


def test_year_columns_under_a_caption_of_fiscal_years_are_asked_by_their_own_year(tmp_path):
    # "fiscal years 2012–2014" names a range: the columns date themselves, the caption no more.
    page = read_table_page(
        draw_layer(
            [
                [("l", 50, "Performance results, fiscal years 2012–2014")],
                centred("2012", "2013", "2014"),
                row(MEASURE, "70%", "75%", "79%"),
            ],
            tmp_path,
        )
    )
    written = write_table_question(page, AGENCY)
    assert written is not None
    assert written.question == f"What was {MEASURE} in 2014?"
    assert written.answer == "79%"
    # a caption naming no single year dates no kind columns
    undated = read_table_page(
        draw_layer(
            [
                [("l", 50, "Performance results, fiscal years 2012–2014")],
                centred("Target", "Actual"),
                row(MEASURE, "90%", "79%"),
            ],
            tmp_path,
            "undated.pdf",
        )
    )
    assert write_table_question(undated, AGENCY) is None


def test_a_monthly_table_is_dated_by_the_month_in_its_title(tmp_path):
    page = read_table_page(
        draw_layer(
            [
                [("l", 50, "Table 2. Retail sales, November 2023 (in millions)")],
                centred("Sales", "Change"),
                row("Retail sales in the Northeast", "1,234", "5.1%"),
                row("Retail sales in the South", "987", "3.2%"),
            ],
            tmp_path,
        )
    )
    sales, change = page.tables[0].columns
    assert (sales.months, str(sales.end)) == (1, "2023-11-30")
    assert change.end is None  # a change column is no figure of the month
    written = write_table_question(page)
    assert written is not None
    assert written.question.endswith(" in November 2023?")
    assert written.answer in ("1,234 (millions)", "987 (millions)")
    asked = parse_table_question("What were Retail sales in the South in November 2023?")
    assert asked is not None and judge_table_question(asked, page).answer == "987 (millions)"
    other = parse_table_question("What were Retail sales in the South in October 2023?")
    assert other is not None and judge_table_question(other, page).answer is None


def test_a_korean_budget_sheets_result_and_budget_years_are_asked_by_year(tmp_path):
    page = read_table_page(
        draw_layer(
            [
                [("l", 50, "(단위: 백만원)")],
                centred("2023년 실적", "2024년 예산"),
                row("사업비", "1,234", "1,500"),
            ],
            tmp_path,
        )
    )
    ministry = PageContext("과학기술정보통신부", "budget", "2024", "2024-12-31")
    written = write_table_question(page, ministry, "ko")
    assert written is not None
    assert written.question.startswith("2024년 ")
    assert written.answer == "1,500 백만원"  # the unit as the sheet prints it
    result = parse_table_question("2023년 사업비는 얼마였습니까?")
    assert result is not None
    assert judge_table_question(result, page, ministry).answer == "1,234 백만원"


def test_a_notes_heading_over_a_row_without_a_label_names_no_row(tmp_path):
    page = read_table_page(
        draw_layer(
            [
                [("l", 50, "31.4 Guarantees received from others")],
                centred("2023", "2022"),
                row("", "200", "200"),
            ],
            tmp_path,
        )
    )
    assert all(r.label == "" for t in page.tables for r in t.rows)
