"""Facts that hold across a filer's documents, on drawn filings of the classes that failed on
filers this project never saw: a calendar-year filer whose quarterly reports print a
trailing-twelve-months column, a 52/53-week filer's quarters, a cover that prints the
transition-period line above the registrant, an annual report whose cover prints only the
prior year end, an 8-K whose exhibit speaks of a fiscal year; and the conflicts the filer's
documents cannot settle."""

from __future__ import annotations

from evalset_pipeline.core.metadata.conflict_hold import HELD_REASON, hold_conflicting
from evalset_pipeline.core.metadata.document_facts import reconcile
from evalset_pipeline.core.metadata.page_metadata import PageMetadata
from evalset_pipeline.core.metadata.page_profile import PageProfile
from evalset_pipeline.core.metadata.registrant import is_boilerplate
from evalset_pipeline_tests.core.metadata.drawn import facts_of_drawn

BODY = [
    "This page is about the business, and it says so in sentences long enough to read as prose text."
] * 6
MONTH_DAY = {1: "March 31", 2: "June 30", 3: "September 30"}


def _ten_q_cover(name: str, ended: str) -> list[str]:
    return [
        "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
        "FORM 10-Q",
        "QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
        f"For the quarterly period ended {ended}",
        "Commission File Number 001-12345",
        name,
        "(Exact name of registrant as specified in its charter)",
    ]


def _calendar_year_quarter(q: int) -> list[list]:
    """A calendar-year filer's 10-Q for 2023 Qq: the quarter, its year to date (none in Q1) and a
    trailing twelve months ending on the quarter's date, as a bank or a utility prints them."""
    ended = f"{MONTH_DAY[q]}, 2023"
    header: tuple[str, ...] = ("", "Three Months Ended")
    dates: tuple[str, ...] = ("", ended, f"{MONTH_DAY[q]}, 2022")
    if q > 1:
        header += ("", {2: "Six", 3: "Nine"}[q] + " Months Ended")
        dates += (ended,)
    header += ("Twelve Months Ended",)
    dates += (ended,)
    rows = [(label, "1,200", "1,100", "3,600", "4,800") for label in ("Revenues", "Net income")]
    about = ["Northwind Utilities Inc. delivers power and gas to homes and businesses."] + BODY
    statement = ["CONSOLIDATED STATEMENTS OF INCOME", header, dates, *rows]
    return [_ten_q_cover("NORTHWIND UTILITIES INC.", ended), about, statement]


def test_a_trailing_twelve_months_column_never_makes_a_quarter_the_fourth(tmp_path):
    quarters = [facts_of_drawn(tmp_path, _calendar_year_quarter(q), f"q{q}.pdf") for q in (1, 2, 3)]
    # each alone: the twelve-month column ends on the quarter's date, so it is no fiscal year
    assert [f.period for f in quarters] == ["2023-Q1", "2023-Q2", "2023-Q3"]
    assert {f.fiscal_year_end_month for f in quarters} == {12}
    done = reconcile(quarters)
    assert [f.period for f in done] == ["2023-Q1", "2023-Q2", "2023-Q3"]  # distinct periods
    assert {f.entity for f in done} == {"Northwind Utilities Inc."}
    assert not any(f.conflicts for f in done)


def _retailer_quarter(ended: str, prior: str, ytd: str) -> list[list]:
    """A 52/53-week filer's 10-Q: quarters of thirteen weeks, a year to date in weeks, a
    trailing fifty-two weeks, and the annual report's year named in the notes."""
    statement = [
        "CONSOLIDATED STATEMENTS OF OPERATIONS",
        ("", "Thirteen Weeks Ended", "", ytd, "Fifty-Two Weeks Ended"),
        ("", ended, prior, ended, ended),
        ("Net sales", "2,400", "2,300", "4,800", "9,700"),
        ("Net earnings", "120", "110", "240", "480"),
    ]
    note = [
        "Note 1. Basis of presentation",
        "Tailspin Stores, Inc. sells toys in stores and online across the country.",
        "These statements should be read with the consolidated financial statements in our",
        "Annual Report on Form 10-K for the fiscal year ended January 28, 2023, as filed.",
    ] + BODY
    return [_ten_q_cover("TAILSPIN STORES, INC.", ended), statement, note]


def test_a_52_53_week_filers_quarters_stay_distinct(tmp_path):
    drawn = [
        ("April 29, 2023", "April 30, 2022", "Thirteen Weeks Ended"),
        ("July 29, 2023", "July 30, 2022", "Twenty-Six Weeks Ended"),
        ("October 28, 2023", "October 29, 2022", "Thirty-Nine Weeks Ended"),
    ]
    quarters = [
        facts_of_drawn(tmp_path, _retailer_quarter(*d), f"r{i}.pdf") for i, d in enumerate(drawn)
    ]
    annual = facts_of_drawn(
        tmp_path,
        [
            [
                "FORM 10-K",
                "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)",
                "For the fiscal year ended February 3, 2024",
                "Commission File Number 001-12345",
                "TAILSPIN STORES, INC.",
                "(Exact name of registrant as specified in its charter)",
            ],
            BODY,
        ],
        "k.pdf",
    )
    done = reconcile([*quarters, annual])
    # the year ends in January (February 3 is an early-month end: January); a year is named after
    # the calendar year it ends in, so the quarters of the year ended February 3, 2024 are FY2024's
    assert [f.period for f in done] == ["2024-Q1", "2024-Q2", "2024-Q3", "2024"]
    assert {f.fiscal_year_end_month for f in done} == {1}
    assert {f.entity for f in done} == {"Tailspin Stores, Inc."}
    assert not any(f.conflicts for f in done)


def test_a_registrant_after_the_transition_period_line_is_the_entity(tmp_path):
    cover = [
        "UNITED STATES",
        "SECURITIES AND EXCHANGE COMMISSION",
        "Washington, D.C. 20549",
        "FORM 10-K",
        "(Mark One)",
        "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
        "For the fiscal year ended December 31, 2022",
        "OR",
        "TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
        "For the transition period from to",
        "Commission File Number 001",
        "(Exact name of registrant as specified in its charter)",
        "WOODGROVE HOLDINGS CORPORATION",
        "Delaware",
    ]
    body = ["Woodgrove Holdings Corporation designs and sells things to customers."] * 3 + BODY
    f = facts_of_drawn(tmp_path, [cover, body])
    assert not is_boilerplate(f.entity)
    assert f.entity == "Woodgrove Holdings Corporation"
    assert (f.form, f.period) == ("10-K", "2022")
    for words in (
        "For the transition period from to Commission File Number 001",
        "(Exact name of registrant as specified in its charter)",
        "FORM 10-K",
    ):
        assert is_boilerplate(words)
    assert not is_boilerplate("Formula One Group")
    # a short cover: the lines above the label are the commission's; after it, the state
    short = [
        "UNITED STATES",
        "SECURITIES AND EXCHANGE COMMISSION",
        "Washington, D.C. 20549",
        "FORM 10-K",
        "(Exact name of registrant as specified in its charter)",
        "NEW YORK",
        "(State or other jurisdiction of incorporation or organization)",
    ]
    g = facts_of_drawn(tmp_path, [short, body], "short.pdf")
    assert g.entity == "Woodgrove Holdings Corporation" and g.entity_source == "legal-name"


def test_an_annual_report_that_prints_only_the_prior_year_end_on_its_cover(tmp_path):
    cover = [
        "Litware Corporation",
        "2023 Annual Report to Shareholders",
        "Share price at December 31, 2022: 41.20",
    ]
    income = [
        "CONSOLIDATED STATEMENTS OF INCOME",
        ("", "Year Ended", "Year Ended", "Year Ended"),
        ("", "December 31, 2023", "December 31, 2022", "December 31, 2021"),
        ("Revenues", "5,100", "4,900", "4,700"),
        ("Net income", "510", "490", "470"),
    ]
    balance = [
        "CONSOLIDATED BALANCE SHEETS",
        ("", "December 31, 2023", "December 31, 2022"),
        ("Total assets", "9,000", "8,700"),
    ]
    cash = [
        "CONSOLIDATED STATEMENTS OF CASH FLOWS",
        ("", "Year Ended", "Year Ended"),
        ("", "December 31, 2023", "December 31, 2022"),
        ("Net cash from operations", "700", "650"),
    ]
    f = facts_of_drawn(tmp_path, [cover, BODY, income, balance, cash])
    assert (f.entity, f.form, f.period, f.period_end) == (
        "Litware Corporation",
        "annual-report",
        "2023",
        "2023-12-31",
    )
    # and a cover that states the prior year's "fiscal year ended" loses to the statements too
    stale = ["Litware Corporation", "Annual Report", "For the fiscal year ended December 31, 2022"]
    g = facts_of_drawn(tmp_path, [stale, BODY, income, income, cash], "stale.pdf")
    assert (g.period, g.period_end) == ("2023", "2023-12-31")


def test_an_event_report_has_no_period_whatever_its_exhibit_says(tmp_path):
    cover = [
        "FORM 8-K",
        "CURRENT REPORT",
        "Date of report (Date of earliest event reported): August 30, 2023",
        "Contoso Ltd.",
        "(Exact name of registrant as specified in its charter)",
    ]
    exhibit = [
        "Exhibit 4.1 Indenture",
        "The notes mature at the end of the fiscal year ended December 31, 2033.",
        "For the fiscal year ended December 31, 2033",
    ] + BODY
    f = facts_of_drawn(tmp_path, [cover, exhibit], "8k.pdf")
    assert (f.form, f.period, f.entity) == ("8-K", "", "Contoso Ltd.")


def test_the_filers_documents_vote_and_what_they_cannot_settle_is_a_conflict(tmp_path):
    """A quarterly report that states nothing of its year borrows the filer's; two quarterly
    reports given one period for different ends are a conflict, held out of the sample until a
    sidecar row gives the page's period."""
    annual = facts_of_drawn(
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
    bare = facts_of_drawn(
        tmp_path, [_ten_q_cover("AMBER PLC", "December 31, 2022"), BODY], "q2.pdf"
    )
    assert bare.calendar_source == "default" and "fiscal year end" in " ".join(
        reconcile([bare])[0].flags
    )
    done = {f.path: f for f in reconcile([annual, bare])}
    assert (done["q2.pdf"].period, done["q2.pdf"].calendar_source) == ("2023-Q2", "filer")
    assert not done["q2.pdf"].conflicts

    # Two 10-Qs that come out as one quarter: dates a month apart in one fiscal quarter.
    a = facts_of_drawn(tmp_path, [_ten_q_cover("AMBER PLC", "October 31, 2022"), BODY], "a.pdf")
    b = facts_of_drawn(tmp_path, [_ten_q_cover("AMBER PLC", "November 30, 2022"), BODY], "b.pdf")
    clash = {f.path: f for f in reconcile([annual, a, b])}
    assert clash["a.pdf"].period == clash["b.pdf"].period == "2023-Q2"
    assert any("also given to b.pdf" in c for c in clash["a.pdf"].conflicts)
    assert any("also given to a.pdf" in c for c in clash["b.pdf"].conflicts)
    assert not clash["k.pdf"].conflicts

    profiles = [PageProfile(f"{d}-p1", f"sha-{d}.pdf", 1) for d in ("a", "k")] + [
        PageProfile("b-p1", "sha-b.pdf", 1)
    ]
    meta = {"b-p1": PageMetadata("b-p1", {"period": "2023-Q2"}, {"period": "sidecar"})}
    held = {
        p.unit_id: p.skip_reason for p in hold_conflicting(profiles, meta, list(clash.values()))
    }
    assert held == {"a-p1": HELD_REASON, "k-p1": "", "b-p1": ""}  # the sidecar row settled b


def test_an_annual_report_whose_year_ends_in_another_month_is_a_conflict(tmp_path):
    def annual(name: str, ended: str):
        cover = [
            "FORM 10-K",
            f"For the fiscal year ended {ended}",
            "Contoso Ltd.",
            "(Exact name of registrant as specified in its charter)",
        ]
        return facts_of_drawn(tmp_path, [cover, BODY], name)

    done = reconcile(
        [
            annual("a.pdf", "December 31, 2021"),
            annual("b.pdf", "December 31, 2022"),
            annual("c.pdf", "June 30, 2023"),
        ]
    )
    assert [f.period for f in done] == ["2021", "2022", "2023"]  # its own year, never relabelled
    assert [bool(f.conflicts) for f in done] == [False, False, True]
    assert "Jun (cover) here, in Dec" in done[2].conflicts[0]


def test_a_korean_public_body_is_named_by_the_form_of_its_name(tmp_path):
    """A budget sheet prints its ministry as a cell of its code table (its PDF author is a
    clerk's login); a brief names its institute in its colophon, not on its cover."""
    sheet = [
        "사 업 명",
        "(9) 청년일자리창출지원(1043-301)",
        "구분",
        "회계",
        "소관",
        "일반회계",
        "고용노동부",
        "청년고용정책관",
        "실시여부",
        "2024년 예산 657,680",
    ]
    f = facts_of_drawn(tmp_path, [sheet], "sheet.pdf", author="srhki")
    assert (f.entity, f.entity_source) == ("고용노동부", "legal-name")
    brief = ["ISSUE & FOCUS", "22-3호", "발행처", "재정융자사업의 개념과 의의"]
    colophon = [
        "기획재정부. (2022). 「2023년 예산안」.",
        "이 보고서는 한국재정정보원 홈페이지를 통해 보실 수 있습니다.",
    ]
    g = facts_of_drawn(tmp_path, [brief, colophon, colophon], "brief.pdf")
    assert g.entity == "한국재정정보원"


def test_an_annual_report_without_dated_statements_takes_the_year_its_cover_names(tmp_path):
    cover = [
        "Litware Corporation",
        "Annual Report 2023",
        "Letter to shareholders, December 31, 2022",
    ]
    f = facts_of_drawn(tmp_path, [cover, BODY], "glossy.pdf")
    assert (f.form, f.period, f.period_kind) == ("annual-report", "2023", "year")


def test_a_release_with_a_trailing_twelve_months_column_is_its_year_to_date_quarter(tmp_path):
    """An earnings release is no quarterly report (it may be the fourth quarter's), so its
    twelve-month column could be a year; a six-month column ending on the same date says the
    year is not over."""
    release = ["FOR IMMEDIATE RELEASE", "Northwind Utilities Inc. (NYSE: NWU) reports results"]
    for span in ("Three", "Six", "Twelve", "Twelve"):
        release += [
            ("", f"{span} Months Ended"),
            ("", "June 30, 2023", "June 30, 2022"),
            ("Revenues", "1,200", "1,100"),
        ]
    f = facts_of_drawn(tmp_path, [release, BODY], "release.pdf")
    assert (f.form, f.period, f.fiscal_year_end_month) == ("earnings-release", "2023-Q2", 12)
