"""Identical files: the document is named by its most plausible name, never a junk copy's."""

from __future__ import annotations

import pytest

from evalset_pipeline.core.corpus.documents import scan_corpus
from evalset_pipeline.core.corpus.names import looks_like_a_copy
from evalset_pipeline_tests.support import bad_corpus as bc


@pytest.mark.parametrize(
    ("names", "chosen"),
    [
        (["copy (2) of x.pdf", "x.pdf"], "x.pdf"),
        (["~$report.pdf", "report.pdf"], "report.pdf"),  # an editor's lock file sorts first
        (["a (1).pdf", "b.pdf"], "b.pdf"),
        (["Annual report - Copy.pdf", "Annual report.pdf"], "Annual report.pdf"),
        (["backup/filing.pdf", "filing.pdf"], "filing.pdf"),
        (["zz/long name.pdf", "short.pdf"], "short.pdf"),  # then the shortest path
        (["b.pdf", "a.pdf"], "a.pdf"),  # then alphabetical
        (["copy of x.pdf", "x (2).pdf"], "x (2).pdf"),  # all junk: the shortest of them
    ],
)
def test_identical_files_are_named_by_the_plausible_name(tmp_path, names, chosen):
    root = tmp_path / "corpus"
    data = bc.simple_pdf(None, 2, label="same bytes")
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    [doc] = scan_corpus(root).documents
    assert doc.path == chosen
    assert doc.paths[0] == chosen and sorted(doc.paths) == sorted(names)  # others are aliases


def test_ordinary_names_do_not_look_like_copies():
    for name in (
        "copyright-2023.pdf",
        "10-K 2023.pdf",
        "templates/annual.pdf",
        "Q2 (restated).pdf",
    ):
        assert not looks_like_a_copy(name), name
