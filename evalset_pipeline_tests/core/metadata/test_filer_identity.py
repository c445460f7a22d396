"""One filer under two names: covers that print one filer identifier are one filer whatever they
call it; different identifiers are two filers even under one name; no identifier groups by name
as before. Generated cover texts of made-up registrants, in the layouts covers print."""

from __future__ import annotations

from evalset_pipeline.core.metadata.document_facts import (
    DocumentFacts,
    extract_document_facts,
    reconcile,
)
from evalset_pipeline.core.metadata.filer_identity import (
    filer_groups,
    filer_of_name,
    read_filer_ids,
    same_filer,
)

BODY = "The company sells software and services to businesses of every size in many countries."


def _cover(name: str, year: int, file_number: str = "", ein: str = "") -> str:
    lines = [
        "UNITED STATES",
        "SECURITIES AND EXCHANGE COMMISSION",
        "Washington, D.C. 20549",
        "FORM 10-K",
        "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
        f"For the fiscal year ended December 1, {year}",
    ]
    if file_number:
        lines.append(f"Commission File Number: {file_number}")
    lines += [name.upper(), "(Exact name of registrant as specified in its charter)"]
    if ein:
        # the number on the line above its label, beside the state, as most covers print it
        lines += [
            f"Delaware {ein}",
            "(State or other jurisdiction of incorporation or organization) "
            "(I.R.S. Employer Identification No.)",
        ]
    lines += [
        "345 Park Avenue, San Jose, California 95110-2704",
        "(Address of principal executive offices) (Zip Code)",
        "(408) 536-6000",
        "(Registrant's telephone number, including area code)",
    ]
    return "\n".join(lines)


def _facts(name: str, year: int, **ids: str):
    texts = [_cover(name, year, **ids), f"{name} {BODY}", f"{name} {BODY}"]
    return extract_document_facts(f"sha-{name}-{year}", f"{name}-{year}.pdf", texts)


def test_the_cover_prints_the_file_number_and_the_employer_number_beside_their_labels():
    cover = _cover("Fabrikam Systems Incorporated", 2017, "0-15175", "77-0019522")
    assert read_filer_ids([cover]) == ("irs-ein:77-0019522", "sec-file:0-15175")
    # zero padding is no other number; a telephone number far from any label is none
    padded = _cover("Fabrikam Inc.", 2022, "000-15175")
    assert read_filer_ids([padded]) == ("sec-file:0-15175",)
    assert read_filer_ids([_cover("Fabrikam Inc.", 2022)]) == ()


def test_a_value_printed_on_the_line_after_its_label():
    cover = "FORM 10-K\nCommission file number\n1-3247\nTAILSPIN TOYS CORPORATION\n"
    assert read_filer_ids([cover]) == ("sec-file:1-3247",)
    # a two-column cover read out of order: the period's date between the label's two lines
    split = "For the quarterly period ended\nCommission file\nMarch 31, 2021\nnumber 1-5805\n"
    assert read_filer_ids([split]) == ("sec-file:1-5805",)
    # a short label for the employer number, its value two lines above it
    short = "WASHINGTON\n91-1234567\n(STATE OF INCORPORATION)\n(I.R.S. ID)\n(425) 555-0100"
    assert read_filer_ids([short]) == ("irs-ein:91-1234567",)


def test_korean_covers_print_the_corporate_and_business_registration_numbers():
    cover = "\n".join(
        [
            "사업보고서",
            "회사명 : 한빛전자 주식회사",
            "법인등록번호 : 110111-0672538",
            "사업자등록번호: 124-81-00998",
        ]
    )
    assert read_filer_ids([cover]) == ("kr-biz:124-81-00998", "kr-corp:110111-0672538")


def test_two_names_one_file_number_are_one_filer_with_each_others_names():
    old = _facts("Fabrikam Systems Incorporated", 2017, file_number="0-15175")
    new = _facts("Fabrikam Inc.", 2022, file_number="0-15175")
    other = _facts("Northwind Traders Inc.", 2022, file_number="1-3247")
    old, new, other = reconcile([old, new, other])
    assert (old.entity, new.entity) == ("Fabrikam Systems Incorporated", "Fabrikam Inc.")
    assert old.aliases == ("Fabrikam Inc.",) and new.aliases == ("Fabrikam Systems Incorporated",)
    assert other.aliases == ()
    assert same_filer(old, new) and not same_filer(old, other)
    filer = filer_of_name([old, new, other])
    assert filer("Fabrikam Inc.") == filer("FABRIKAM SYSTEMS INCORPORATED") != filer(other.entity)
    assert filer("Contoso Ltd.") == "contosoltd"  # a name no document bears is its own
    # what a backend is shown beside the old filing's pages names the new name too
    assert old.page_context().same_filer(new.page_context())
    assert not old.page_context().same_filer(other.page_context())


def test_one_name_two_file_numbers_are_two_filers():
    a = _facts("Tailspin Toys Corporation", 2021, file_number="1-3247")
    b = _facts("Tailspin Toys Corporation", 2022, file_number="1-9999")
    assert len(filer_groups([a, b])) == 2
    assert filer_groups([a, a]) == [[0, 1]]


def test_without_a_number_the_name_decides_as_before():
    plain = _facts("Tailspin Toys Corporation", 2021)
    numbered = _facts("Tailspin Toys Corporation", 2022, file_number="1-3247")
    renamed = _facts("Tailspin Holdings Inc.", 2023)
    assert filer_groups([plain, numbered, renamed]) == [[0, 1], [2]]
    out = reconcile([plain, numbered, renamed])
    assert [f.aliases for f in out] == [(), (), ()]
    assert not same_filer(out[0], out[2])
    # documents nobody names are no filer's, and never each other's
    anonymous = [DocumentFacts("x", "x.pdf"), DocumentFacts("y", "y.pdf")]
    assert filer_groups(anonymous) == [[0], [1]]


def test_a_short_name_joins_the_renamed_filers_name_in_use_at_the_time():
    old = _facts("Fabrikam Systems Incorporated", 2017, file_number="0-15175")
    new = _facts("Fabrikam Inc.", 2022, file_number="0-15175")
    release = DocumentFacts("r", "r.pdf", "Fabrikam", "ticker", 0.8, period_end="2023-03-03")
    early = DocumentFacts("e", "e.pdf", "Fabrikam", "ticker", 0.8, period_end="2016-06-03")
    out = reconcile([old, new, release, early])
    assert [f.entity for f in out[2:]] == ["Fabrikam Inc.", "Fabrikam Systems Incorporated"]
    assert out[2].aliases == ("Fabrikam Systems Incorporated",)
    # two filers' names stay apart: the short name joins neither
    other = _facts("Fabrikam Inc.", 2022, file_number="1-9999")
    assert reconcile([old, other, release])[2].entity == "Fabrikam"
