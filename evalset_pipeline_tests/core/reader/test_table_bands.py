"""Performance tables as agency reports print them: measure names wrapped over several lines with
the figures centred on them, fiscal-year columns headed "FY 2015" over "Results", targets printed
with a sign ("≥75%", drawn here as ">75%": the test font has no "≥") and a "Met / Not Met"
column, and one-measure tables whose name is their caption. Statements, read the same way, keep
their parents and sub-items."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline.core.reader.table_bands import merge_banded_labels
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline.core.reader.table_reader import read_tables
from evalset_pipeline_tests.core.reader.test_table_reader import draw_layer, row
from evalset_pipeline_tests.support.korean_text import put_text

AGENCY = PageContext(
    "Office of Example Management", "annual performance report", "2015", "2015-09-30"
)

FONT = 8.0
# Results by fiscal year right-align at these edges; the target and "Met" columns print words.
RESULT_EDGES = (250.0, 300.0, 350.0)
TARGET_X = 395.0
MET_X = 450.0

# A drawn item at an explicit height: (kind, x, y, text), kind as `put_text` takes it.
Placed = tuple[str, float, float, str]


def _draw(items: Sequence[Placed], tmp_path: Path) -> dict:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for kind, x, y, text in items:
        put_text(page, kind, x, y, text, FONT)
    path = tmp_path / "report.pdf"
    doc.save(path)
    doc.close()
    with pymupdf.open(path) as pdf:
        return text_layer_of(pdf[0])


def _headers(top: float) -> list[Placed]:
    """ "FY 2013 | FY 2014 | FY 2015 | FY 2015 | FY 2015" over "Results … | Target | Target Met/"."""
    # the label column's header wraps between the header lines, half a line from each
    items: list[Placed] = [
        ("l", 60, top, "Performance"),
        ("l", 60, top + 5.5, "Table"),
        ("l", 60, top + 11, "Measure"),
    ]
    for edge, year in zip(RESULT_EDGES, ("2013", "2014", "2015"), strict=True):
        items += [("c", edge - 14, top, f"FY {year}"), ("c", edge - 14, top + 11, "Results")]
    items += [("c", TARGET_X, top, "FY 2015"), ("c", TARGET_X, top + 11, "Target")]
    items += [("c", MET_X, top, "Target"), ("c", MET_X, top + 11, "Met/Not Met")]
    return items


def _measure(
    top: float, code: str, name_lines: Sequence[str], figures_after: int, cells: Sequence[str]
) -> list[Placed]:
    """One measure: its code in a column of its own, its name wrapped at an 11-point pitch, and
    its figures on a line of their own centred between name line `figures_after` and the next."""
    items: list[Placed] = [("l", 110, top + 11 * k, text) for k, text in enumerate(name_lines)]
    y = top + 11 * figures_after + 5.5
    items.append(("l", 60, y, code))
    for edge, cell in zip(RESULT_EDGES, cells[:3], strict=True):
        items.append(("r", edge, y, cell))
    items += [("c", TARGET_X, y, cells[3]), ("c", MET_X, y, cells[4])]
    return items


FIRST = (
    "Percent of retirement",
    "claims processed",
    "within sixty days of",
    "receiving the application",
)
SECOND = ("Number of plans", "enrolling new", "members")


def _measure_table(tmp_path: Path) -> dict:
    items = [("l", 60, 70, "Strategic Goal 7: Serve retirees well")]
    items += _headers(100)
    items += _measure(150, "7.01A", FIRST, 1, ("N/A(Footnote", "61%", "79%", ">90%", "Not Met"))
    items += _measure(215, "7.01B", SECOND, 0, ("1,204", "1,310", "1,455", ">1,400", "Met"))
    items += [("l", 60, 280, "*N/A - Not Available - no data available for this period.")]
    return _draw(items, tmp_path)


def test_a_measure_wrapped_around_its_figures_is_one_row_with_its_full_name(tmp_path):
    [table] = [t for t in read_tables(_measure_table(tmp_path)) if t.rows]
    valued = [r for r in table.rows if any(v is not None for v in r.values)]
    assert [r.label for r in valued] == [" ".join(FIRST), " ".join(SECOND)]
    assert all(not r.parent for r in valued)
    assert [c.year for c in table.columns] == [2013, 2014, 2015]
    assert [r.cells for r in valued] == [("N/A", "61%", "79%"), ("1,204", "1,310", "1,455")]


def test_a_measure_table_is_asked_for_a_years_result_by_the_measures_full_name(tmp_path):
    page = read_table_page(_measure_table(tmp_path))
    written = write_table_question(page, AGENCY)
    assert written is not None
    asked = {
        "What was the fiscal 2015 result for percent of retirement claims processed within "
        "sixty days of receiving the application?": "79%",
        "What was the fiscal 2015 result for number of plans enrolling new members?": "1,455",
    }
    assert written.question in asked
    assert written.answer == asked[written.question]
    for question, answer in asked.items():
        parsed = parse_table_question(question)
        assert parsed is not None and judge_table_question(parsed, page, AGENCY).answer == answer
    earlier = parse_table_question(
        "What was the fiscal 2014 result for number of plans enrolling new members?"
    )
    assert earlier is not None and judge_table_question(earlier, page, AGENCY).answer == "1,310"


def test_a_one_measure_table_is_dated_by_its_headers_under_its_caption(tmp_path):
    # The caption ("TABLE 3.01", "PERFORMANCE MEASURE:", the name over two lines) is centred over
    # the columns; it names the only row and is no column header. The first years print
    # "N/A*" with a tagged footnote marker glued to it.
    items: list[Placed] = [
        ("l", 60, 70, "TABLE 3.01"),
        ("c", 300, 95, "PERFORMANCE MEASURE:"),
        ("c", 300, 106, "Number of signed research agreements with academic institutions,"),
        ("c", 300, 117, "professional associations, or industry"),
    ]
    for edge, year in zip(RESULT_EDGES, ("2013", "2014", "2015"), strict=True):
        items += [("c", edge - 14, 140, f"FY {year}"), ("c", edge - 14, 151, "Results")]
    items += [("c", TARGET_X, 140, "FY 2015"), ("c", TARGET_X, 151, "Target")]
    items += [("r", 250, 180, "N/A(Footnote"), ("r", 300, 180, "2"), ("r", 350, 180, "4")]
    items += [("c", TARGET_X, 180, ">5"), ("c", MET_X, 180, "Not Met")]
    items += [("l", 60, 210, "FY 2015 Analysis of Results:")]
    page = read_table_page(_draw(items, tmp_path))
    [table] = [t for t in page.tables if t.rows]
    assert [c.year for c in table.columns] == [2014, 2015]
    written = write_table_question(page, AGENCY)
    assert written is not None
    assert written.question == (
        "What was the fiscal 2015 result for number of signed research agreements with academic "
        "institutions, professional associations, or industry?"
    )
    assert written.answer == "4"


def test_a_statements_parents_stay_parents_whatever_its_spacing(tmp_path):
    # A statement's parent over its indented sub-items, and a note's short table set in bands:
    # neither is a name wrapped around figures.
    layer = draw_layer(
        [
            [("c", 415, "2015"), ("c", 485, "2014")],
            row("Operating expenses:", indent=50),
            row("Research and development", "1,200", "1,100", indent=62),
            row("Selling, general and administrative", "800", "750", indent=62),
            row("Total operating expenses", "2,000", "1,850", indent=50),
            [],
            row("Other income", indent=50),
            row("Interest income", "40", "35", indent=62),
            [],
            row("Income before income taxes", "900", "820", indent=50),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    parents = {r.label: r.parent for r in table.rows}
    assert parents["Research and development"] == "Operating expenses"
    assert parents["Interest income"] == "Other income"
    assert "Income before income taxes" in parents


def test_bands_merge_only_around_figures():
    # Lines at one pitch with a parent above several rows: untouched. A band whose one row of
    # figures has name lines above and below it: one row.
    flat = [
        ("Operating expenses:", 50.0, [None, None], 100.0),
        ("Research", 62.0, ["1", "2"], 111.0),
        ("Selling", 62.0, ["3", "4"], 122.0),
    ]
    assert merge_banded_labels(flat, []) == flat
    wrapped = [
        ("Percent of claims", 110.0, [None, None], 100.0),
        ("7.01A", 60.0, ["61%", "79%"], 105.5),
        ("processed on time", 110.0, [None, None], 111.0),
        ("Number of plans", 110.0, [None, None], 140.0),
    ]
    trailing = [("enrolling members", 110.0, [None, None], 151.0)]
    merged = merge_banded_labels(wrapped, trailing)
    assert [m[0] for m in merged] == ["Percent of claims processed on time", "Number of plans"]
    assert merged[0][2] == ["61%", "79%"]


def _summary_measure(
    top: float, code: str, name_lines: Sequence[str], figures_at: float, cells: Sequence[str]
) -> list[Placed]:
    """One measure of a goal's summary table: its code in a column of its own, its name wrapped at
    an 11-point pitch, its figures `figures_at` lines below the name's first line (a whole number:
    on a name line; a half: on a line of their own between two), and a target of words wrapped
    over two lines half a line above and below the figures in both the target and the "Met"
    columns, unless the target is a figure."""
    items: list[Placed] = [("l", 110, top + 11 * k, text) for k, text in enumerate(name_lines)]
    y = top + 11 * figures_at
    items.append(("l", 60, y, code))
    for edge, cell in zip(RESULT_EDGES, cells[:3], strict=True):
        items.append(("r", edge, y, cell))
    if " " not in cells[3]:  # a target figure (">10%", "75%")
        items += [("c", TARGET_X, y, cells[3]), ("c", MET_X, y, "Met")]
    else:
        first, second = cells[3].split(" ", 1)
        for x in (TARGET_X, MET_X):
            items += [("c", x, y - 5.5, first), ("c", x, y + 5.5, second)]
    return items


OFFICES = ("Percent of field offices", "meeting their service", "quality targets")
MILESTONES = (
    "Percent of Strategy 4.02",
    "milestones from the",
    "Service Delivery",
    "Plan completed",
)
PANELS = ("Number of review", "panels convened")
INDEX = ("Overall service", "index score for", "all offices")


def test_a_goal_summary_reads_each_measure_with_its_full_name_and_its_years(tmp_path):
    # The code column ("4.01A", and "4.02", which reads as a number) stands left of the names; the
    # first year is "N/A" throughout (no column of figures of its own); a target of words
    # ("Establish" / "Baseline") wraps over the lines around the figures; one measure's figures
    # sit alone between its two name lines; another's target is a bare figure right of the
    # results. Rows are set 1.4 pitches apart.
    items = [("l", 60, 70, "Strategic Goal 4: Deliver services on time")]
    items += _headers(100)
    items += _summary_measure(
        150, "4.01A", OFFICES, 1, ("N/A", "43.8%", "66.7%", "Establish Baseline")
    )
    items += _summary_measure(187.4, "4.02", MILESTONES, 2, ("N/A", "37.5%", "45.8%", ">10%"))
    items += _summary_measure(235.8, "4.03", PANELS, 0.5, ("N/A", "12", "19", "Establish Baseline"))
    items += _summary_measure(273.2, "4.04", INDEX, 1, ("N/A", "63%", "64%", "75%"))
    items += [("l", 60, 320, "*N/A - Not Available - no data available for this period.")]
    [table] = [t for t in read_tables(_draw(items, tmp_path)) if t.rows]
    valued = [r for r in table.rows if any(v is not None for v in r.values)]
    names = [" ".join(OFFICES), " ".join(MILESTONES), " ".join(PANELS), " ".join(INDEX)]
    assert [r.label for r in valued] == names
    years = [c.year for c in table.columns]
    assert years[-2:] == [2014, 2015]
    assert [r.cells[-2:] for r in valued] == [
        ("43.8%", "66.7%"),
        ("37.5%", "45.8%"),
        ("12", "19"),
        ("63%", "64%"),
    ]
    assert all(not r.parent for r in valued)


def test_a_goal_summary_is_asked_by_the_measures_full_name(tmp_path):
    items = list(_headers(100))
    items += _summary_measure(
        150, "4.01A", OFFICES, 1, ("N/A", "43.8%", "66.7%", "Establish Baseline")
    )
    items += _summary_measure(187.4, "4.03", PANELS, 0.5, ("N/A", "12", "19", "Establish Baseline"))
    page = read_table_page(_draw(items, tmp_path))
    question = parse_table_question(
        "What was the fiscal 2015 result for percent of field offices meeting their service "
        "quality targets?"
    )
    assert question is not None
    assert judge_table_question(question, page, AGENCY).answer == "66.7%"


def test_a_column_of_text_beside_the_figures_keeps_its_wrapped_lines_out_of_the_labels(tmp_path):
    # A property table: each site's address wraps under its name, its use (a column of text
    # right of the figures) wraps too and ends in one word on the address line. That word is no
    # status of a measure: the address line is no row and the sites stay under their region.
    items: list[Placed] = [("l", 60, 90, "Region"), ("r", 300, 90, "Square Feet")]
    items += [("l", 60, 110, "North America")]
    for k, (site, town) in enumerate(
        (("West Building, 10 Main Street", "Springfield, ST 10001"), ("East Building", "Shelby"))
    ):
        y = 125 + 26 * k
        items += [("l", 66, y, site), ("r", 300, y, f"{391 - k},000")]
        items += [("l", 340, y, "Research, product development, sales and")]
        items += [("l", 66, y + 11, town), ("l", 340, y + 11, "administration")]
    [table] = [t for t in read_tables(_draw(items, tmp_path)) if t.rows]
    labels = {r.label: r.parent for r in table.rows}
    assert labels["West Building, 10 Main Street"] == "North America"
    assert labels["East Building"] == "North America"
    assert not any(label.startswith(("Springfield", "Shelby")) for label in labels)
