"""A corpus folder of symlinks to files kept elsewhere: rejected one by one unless
`follow_symlinks`, which reads file links wherever they point and still never walks a folder
link (so a link back up the tree cannot loop the scan)."""

from __future__ import annotations

import os
from pathlib import Path

import pymupdf
import pytest

from evalset_pipeline.core.checks.corpus_state import current_corpus_fingerprint
from evalset_pipeline.core.corpus.documents import OUTSIDE_ROOT, scan_corpus
from evalset_pipeline.core.pipeline.documents import every_document_rejected


def _pdf(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), text)
        doc.save(path)
    return path


@pytest.fixture
def linked(tmp_path) -> Path:
    """links/ holds a link per PDF of kept/, a link to a folder, and a link back to itself."""
    kept, links = tmp_path / "kept", tmp_path / "links"
    links.mkdir()
    for name in ("a.pdf", "b.pdf", "sub/c.pdf"):
        target = _pdf(kept / name, f"page of {name}")
        os.symlink(target, links / Path(name).name)
    os.symlink(kept / "sub", links / "folder-link")  # a folder link: never walked
    os.symlink(links, links / "loop")  # would loop a walk that followed folders
    return links


def test_without_the_flag_every_linked_file_is_rejected_as_outside(linked):
    scan = scan_corpus(linked)
    assert scan.documents == []
    assert {r.path: r.reason for r in scan.rejected} == {
        "a.pdf": OUTSIDE_ROOT,
        "b.pdf": OUTSIDE_ROOT,
        "c.pdf": OUTSIDE_ROOT,
        "folder-link": OUTSIDE_ROOT,
    }


def test_with_the_flag_file_links_are_read_and_folder_links_are_not(linked):
    scan = scan_corpus(linked, follow_symlinks=True)
    assert sorted(d.path for d in scan.documents) == ["a.pdf", "b.pdf", "c.pdf"]
    assert all(d.page_count == 1 for d in scan.documents)
    assert [(r.path, r.reason) for r in scan.rejected] == [("folder-link", OUTSIDE_ROOT)]
    # the sensor's and the freshness check's cheap fingerprint agrees with the scan's
    assert current_corpus_fingerprint(linked, follow_symlinks=True) == scan.fingerprint
    assert current_corpus_fingerprint(linked) == scan_corpus(linked).fingerprint != scan.fingerprint


def test_a_dangling_or_looping_file_link_is_rejected_not_followed_forever(linked):
    os.symlink(linked / "nowhere.pdf", linked / "dangling.pdf")
    os.symlink(linked / "self.pdf", linked / "self.pdf")
    scan = scan_corpus(linked, follow_symlinks=True)
    reasons = {r.path: r.reason for r in scan.rejected}
    assert reasons["dangling.pdf"].startswith("cannot read file")
    assert reasons["self.pdf"].startswith("cannot read file")
    assert len(scan.documents) == 3


def test_the_all_rejected_paragraph_names_the_top_reason_and_the_flag(linked):
    text = every_document_rejected(linked, scan_corpus(linked).rejected)
    assert text.startswith(f"every PDF under {linked} was rejected (4 rejected, none kept)")
    assert f"for 4, is: {OUTSIDE_ROOT}" in text and "--follow-symlinks" in text
    assert "\n" not in text  # one paragraph


def test_the_flag_is_only_suggested_when_links_are_the_reason(tmp_path):
    (tmp_path / "empty.pdf").write_bytes(b"")
    text = every_document_rejected(tmp_path, scan_corpus(tmp_path).rejected)
    assert "empty file (0 bytes)" in text and "--follow-symlinks" not in text
