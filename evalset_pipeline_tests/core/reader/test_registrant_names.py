"""A question naming a renamed filer's new name is answered by its filing under the old name
(one Commission File Number on both covers), and by nobody else's."""

from __future__ import annotations

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.metadata.document_facts import extract_document_facts, reconcile
from evalset_pipeline.core.reader.registrant_names import names_registrant
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    qualify_table_question,
    read_table_page,
)
from evalset_pipeline_tests.core.metadata.drawn import draw_pdf, layers_of

# a statement page that prints no company name: its document's registrant is its company
STATEMENT = [
    "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS",
    "($ in millions)",
    ("", "Three Months Ended", ""),
    ("", "July 1, 2023", "July 2, 2022"),
    ("Net sales", "1,200", "1,100"),
    ("Net income", "150", "120"),
]


def _cover(name: str, year: int, file_number: str) -> list[str]:
    return [
        "FORM 10-K",
        f"For the fiscal year ended December 1, {year}",
        f"Commission File Number: {file_number}",
        name.upper(),
        "(Exact name of registrant as specified in its charter)",
        f"{name} sells software to businesses of every size in many countries around the world.",
    ]


def _context(name: str, year: int, file_number: str, *others: tuple[str, int, str]) -> PageContext:
    """The context of the first document's pages, its facts reconciled with the others'."""
    docs = [
        extract_document_facts(f"{n}{y}", f"{n}{y}.pdf", ["\n".join(_cover(n, y, f))])
        for n, y, f in ((name, year, file_number), *others)
    ]
    return reconcile(docs)[0].page_context()


def test_a_question_naming_the_new_name_is_answered_by_the_old_names_filing(tmp_path):
    [layer] = layers_of(draw_pdf(tmp_path / "s.pdf", [STATEMENT]))
    page = read_table_page(layer)
    base = "What was Net sales for the three months ended July 1, 2023?"
    q = parse_table_question(qualify_table_question(base, {"entity": "Fabrikam Inc."}))
    renamed = _context(
        "Fabrikam Systems Incorporated", 2017, "0-15175", ("Fabrikam Inc.", 2022, "000-15175")
    )
    assert renamed.entity == "Fabrikam Systems Incorporated"
    assert renamed.aliases == ("Fabrikam Inc.",)
    assert judge_table_question(q, page, renamed).answers
    # the same old name under another file number is another filer: its page does not answer
    unrelated = _context(
        "Fabrikam Systems Incorporated", 2017, "0-15175", ("Fabrikam Inc.", 2022, "1-9999")
    )
    assert unrelated.aliases == ()
    assert not judge_table_question(q, page, unrelated).answers


def test_names_registrant_reads_every_name_of_the_filer():
    context = PageContext("Fabrikam Systems Incorporated", aliases=("Fabrikam Inc.",))
    assert names_registrant("Fabrikam, Inc", context)
    assert names_registrant("FABRIKAM SYSTEMS INCORPORATED", context)
    assert not names_registrant("Northwind Traders Inc.", context)
    assert not names_registrant("Fabrikam Inc.", None) and not names_registrant("", context)


def test_a_context_without_aliases_keys_its_caches_as_before():
    plain = PageContext("Fabrikam Inc.", "10-K", "2022", "2022-12-02")
    assert plain.as_dict() == {
        "registrant": "Fabrikam Inc.",
        "form": "10-K",
        "fiscal_period": "2022",
        "period_end": "2022-12-02",
    }
    renamed = PageContext("Fabrikam Inc.", "10-K", "2022", "2022-12-02", ("Fabrikam Systems",))
    assert renamed.as_dict()["registrant_aliases"] == ["Fabrikam Systems"]
