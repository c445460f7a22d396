"""Document facts on drawn PDFs: covers in several phrasings, fiscal calendars, comparative
columns, and a page whose only dates are boilerplate."""

from __future__ import annotations

from datetime import date

import pytest

from evalset_pipeline.core.metadata.document_facts import (
    reconcile,
)
from evalset_pipeline.core.metadata.page_subject import read_subjects
from evalset_pipeline.core.metadata.reporting_period import printed_periods
from evalset_pipeline.core.pagetext.fiscal import FiscalCalendar
from evalset_pipeline_tests.core.metadata.drawn import draw_pdf, facts_of_drawn, layers_of

BODY = [
    "This page is about the business, and it says so in sentences long enough to read as prose text."
] * 6


facts_of = facts_of_drawn  # one drawn document's facts (support: metadata/drawn.py)


SEC_10Q = [
    "UNITED STATES",
    "SECURITIES AND EXCHANGE COMMISSION",
    "FORM 10-Q",
    "QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
    "For the quarterly period ended July 1, 2023",
    "Commission File Number 001-12345",
    "CONTOSO LTD.",
    "(Exact name of registrant as specified in its charter)",
    "Delaware 12-3456789",
]
YTD = [
    ("", "Three Months Ended", "", "Nine Months Ended"),
    ("", "July 1, 2023", "July 2, 2022", "July 1, 2023"),
    ("Net sales", "1,200", "1,100", "3,600"),
    ("Cost of sales", "(700)", "(650)", "(2,100)"),
]


def test_a_cover_label_names_the_registrant_and_the_ytd_span_gives_the_fiscal_quarter(tmp_path):
    f = facts_of(
        tmp_path,
        [
            SEC_10Q,
            ["Contoso Ltd. and its subsidiaries design things."] + BODY,
            ["CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS", *YTD],
        ],
    )
    assert (f.entity, f.entity_source, f.form) == ("Contoso Ltd.", "cover-label", "10-Q")
    # nine months ended July 1: the fiscal year began in October, so this is FY2023 Q3, not calendar Q2
    assert (f.period, f.period_kind, f.period_end, f.period_source) == (
        "2023-Q3",
        "quarter",
        "2023-07-01",
        "cover",
    )
    assert (f.fiscal_year_end_month, f.calendar_source) == (9, "spans")


@pytest.mark.parametrize(
    "cover, expected",
    [
        # no cover label: the legal name printed most (ALL CAPS on the cover, mixed case inside)
        (
            [
                "FORM 10-K",
                "ANNUAL REPORT PURSUANT TO SECTION 13",
                "For the fiscal year ended January 1, 2023",
                "Commission file number 1-2345",
                "FABRIKAM INDUSTRIES CORPORATION",
                "Principal executive offices: Springfield",
            ],
            ("Fabrikam Industries Corporation", "legal-name", "10-K", "2022", "year"),
        ),  # 52/53-week year: FY2022
        # a press release: the name before the ticker, the period as the release names it
        (
            [
                "FOR IMMEDIATE RELEASE",
                "Northwind Traders Inc. (NYSE: NWT) today reported 2023 Second-Quarter results",
                "Sales rose in every region.",
            ],
            ("Northwind Traders Inc.", "ticker", "earnings-release", "2023-Q2", "quarter"),
        ),
        # a Korean business report: the name after its label, the period from the stated range
        (
            [
                "사업보고서",
                "(제 55 기)",
                "사업연도 2023년 01월 01일 부터 2023년 12월 31일 까지",
                "회사명 : 한빛전자 주식회사",
            ],
            ("한빛전자 주식회사", "cover-label", "annual-report", "2023", "year"),
        ),
        # a half-year interim report
        (
            [
                "Interim Report",
                "For the six-month period ended 30 June 2024",
                "Name of issuer: Tailspin Toys plc",
            ],
            ("Tailspin Toys plc", "cover-label", "half-year-report", "2024-H1", "half"),
        ),
    ],
)
def test_covers_in_several_phrasings(tmp_path, cover, expected):
    body = [
        "Fabrikam Industries Corporation and its subsidiaries make things for customers."
    ] * 2 + BODY
    f = facts_of(tmp_path, [cover, body])
    assert (f.entity, f.entity_source, f.form, f.period, f.period_kind) == expected


def test_pdf_author_counts_only_when_the_document_prints_it(tmp_path):
    printed = facts_of(
        tmp_path,
        [["Woodgrove Group", "Quarter ended June 30, 2024"] + BODY],
        "a.pdf",
        author="Woodgrove Group",
    )
    assert (printed.entity, printed.entity_source, printed.period) == (
        "Woodgrove Group",
        "pdf-author",
        "2024-Q2",
    )
    person = facts_of(tmp_path, [["Quarterly figures"] + BODY], "b.pdf", author="Maria Example")
    assert person.entity_source != "pdf-author" or person.entity_confidence < 0.5


def test_boilerplate_dates_never_become_the_period(tmp_path):
    certification = [
        "CERTIFICATION",
        "I have reviewed this quarterly report.",
        "Dated: June 30, 2003",
        "/s/ A. Person, Chief Executive Officer",
    ]
    f = facts_of(tmp_path, [SEC_10Q, certification])
    # the cover's period (no year-to-date column here, so in the calendar year until the corpus knows better)
    assert (f.period, f.period_end, f.calendar_source) == ("2023-Q2", "2023-07-01", "default")
    event = facts_of(
        tmp_path,
        [
            [
                "FORM 8-K",
                "CURRENT REPORT",
                "Date of report (Date of earliest event reported): August 30, 2023",
                "Contoso Ltd.",
                "(Exact name of registrant as specified in its charter)",
            ]
        ],
        "8k.pdf",
    )
    assert (event.form, event.period, event.entity) == ("8-K", "", "Contoso Ltd.")


def test_corpus_reconciles_spelling_and_lends_the_fiscal_calendar(tmp_path):
    annual = facts_of(
        tmp_path,
        [
            [
                "FORM 10-K",
                "For the fiscal year ended June 30, 2023",
                "AMBER PLC",
                "(Exact name of registrant as specified in its charter)",
            ],
            BODY,
        ],
        "k.pdf",
    )
    quarter_cover = [
        "FORM 10-Q",
        "For the quarterly period ended December 31, 2022",
        "Amber plc",
        "(Exact name of registrant as specified in its charter)",
    ]
    quarterly = facts_of(
        tmp_path, [quarter_cover, BODY], "q.pdf"
    )  # no year-to-date column: calendar unknown
    release = facts_of(
        tmp_path,
        [["Amber Group reports results for the quarter ended December 31, 2022"] + BODY * 2],
        "r.pdf",
    )
    assert quarterly.period == "2022-Q4" and quarterly.calendar_source == "default"
    done = {f.path: f for f in reconcile([annual, quarterly, release])}
    assert (
        done["q.pdf"].period == "2023-Q2" and done["q.pdf"].calendar_source == "filer"
    )  # borrowed June year end
    assert {done[p].entity for p in done} == {
        "Amber plc"
    }  # one spelling; the release's short name joins it


def test_fiscal_calendar_labels():
    june = FiscalCalendar(6)
    assert june.label(date(2022, 12, 31), "quarter") == "2023-Q2"
    assert june.label(date(2023, 6, 30), "year") == "2023"
    assert FiscalCalendar.from_span(date(2023, 7, 2), 6) == FiscalCalendar(
        12
    )  # 52/53-week: July 2 is June
    assert FiscalCalendar(1).label(date(2017, 4, 30), "quarter") == "2018-Q1"  # year ending January
    assert FiscalCalendar(12).label(date(2023, 1, 1), "year") == "2022"


def test_statement_with_comparative_columns(tmp_path):
    balance = [
        "Contoso Ltd.",
        "CONDENSED CONSOLIDATED BALANCE SHEETS (Unaudited)",
        "(in millions)",
        ("", "July 1, 2023", "September 24, 2022"),
        ("Cash and cash equivalents", "1,000", "900"),
        ("Accounts receivable", "500", "450"),
        ("Inventories", "300", "280"),
        ("Total assets", "9,000", "8,700"),
        ("Total liabilities", "5,000", "4,800"),
    ]
    income = [
        "CONTOSO LTD.",
        "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS",
        *YTD,
        ("Gross margin", "500", "450", "1,500"),
        ("Net income", "120", "110", "360"),
    ]
    more = [(f"Line item {i}", f"{100 + i}", f"{90 + i}", f"{300 + i}") for i in range(12)]
    layers = layers_of(
        draw_pdf(tmp_path / "s.pdf", [balance, income, ["(continued)", *YTD[:2], *more], BODY])
    )
    subjects = read_subjects(layers, "Contoso Ltd.")
    assert [s.statement for s in subjects] == [
        "balance_sheet",
        "income_statement",
        "income_statement",
        "",
    ]
    assert subjects[2].statement_source == "continued"
    assert subjects[0].subject == "balance_sheet" and subjects[3].statement == ""
    printed = printed_periods(layers[1]["text"], FiscalCalendar(9))
    assert {"2023-Q3", "2022-Q3"} <= set(printed)  # the comparative column, in the filer's calendar


def test_a_page_that_names_a_statement_inside_prose_is_not_one(tmp_path):
    note = [
        "Note 7. Supplemental balance sheet information",
        "The consolidated statements of cash flows include the following items in this table.",
        ("Accrued expenses", "120", "110"),
        ("Deferred revenue", "80", "70"),
        ("Other", "10", "12"),
    ]
    layers = layers_of(draw_pdf(tmp_path / "n.pdf", [note]))
    [subject] = read_subjects(layers)
    assert subject.statement == "" and subject.heading == "supplemental balance sheet information"


def test_printed_periods_read_years_set_under_a_month_and_day():
    """Report headers often print the span and its month and day once, the years in the columns."""
    side_by_side = (
        "As of or for the three months\nended June 30,\nAs of or for the six months\nended June 30,\n"
        "(in millions, except ratios)\n2023\n2022\nChange\n2023\n2022\nChange\nNet charge-offs\n$\n100\n"
    )
    assert printed_periods(side_by_side, FiscalCalendar()) == [
        "2023-Q2",
        "2022-Q2",
        "2023-H1",
        "2022-H1",
        "2023",
        "2022",
    ]
    one_span = "Selected income statement data\nThree months ended March 31,\n2021\n2020\nChange\nRevenue\n$ 742\n"
    assert printed_periods(one_span, FiscalCalendar())[:2] == ["2021-Q1", "2020-Q1"]


def test_running_text_without_an_amount_offers_nothing_to_ask(tmp_path):
    from evalset_pipeline.core.metadata.page_subject import page_lines
    from evalset_pipeline.core.metadata.unaskable import skip_reason

    legal = ["Item 1A. Risk Factors"] + [
        "Under Section 10.2 of the Agreement, the parties may amend the terms described in clause 4.1 at any",
        "time before December 31, 2023, subject to the approvals required by the laws of the State of Delaware",
        "and the rules of the exchange on which the shares are listed for trading from time to time.",
    ] * 5
    stated = legal[:-1] + [
        "Research and development expense was $1,253 million in 2018, up 4% on the year."
    ]
    layers = layers_of(draw_pdf(tmp_path / "r.pdf", [legal, stated]))
    subjects = read_subjects(layers)
    assert [s.layout for s in subjects] == ["prose", "prose"]
    reasons = [
        skip_reason(page_lines(layer), s, i + 2)
        for i, (layer, s) in enumerate(zip(layers, subjects, strict=False))
    ]
    assert reasons == ["no figures", ""]  # clause numbers are not figures; an amount is


def test_printed_periods_of_korean_statements_and_notes():
    """A Korean statement states each column's period in its heading, balances by their date, and
    a notes table names its columns relative to the filing ("당기말 | 전기말")."""
    calendar = FiscalCalendar()
    income = "연결 손익계산서\n제 55 기 2023.01.01 부터 2023.12.31 까지\n제 54 기 2022.01.01 부터 2022.12.31 까지"
    assert printed_periods(income, calendar) == ["2023", "2022"]
    balance = "연결 재무상태표\n제 56 기 3분기말 2024.09.30 현재\n제 55 기말 2023.12.31 현재"
    assert printed_periods(balance, calendar) == ["2024-Q3", "2023"]
    note = "재고자산의 내역은 다음과 같습니다.\n구 분\n당기말\n전기말\n제품\n1,234\n1,100"
    assert printed_periods(note, calendar) == []  # of which filing? unknown without its period
    assert printed_periods(note, calendar, "2023", "2023-12-31") == ["2023", "2022"]
    assert printed_periods(note, calendar, "2024-Q3", "2024-09-30") == ["2024-Q3", "2023"]
    # A sentence comparing with the prior period ("전기 대비") is no column of it.
    assert printed_periods("매출은 전기 대비 증가하였습니다.", calendar, "2023", "2023-12-31") == []
