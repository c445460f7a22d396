import os
from pathlib import Path

import pymupdf

from evalset_pipeline.core.corpus.documents import scan_corpus


def _pdf(path: Path, pages: int = 1, **save) -> Path:
    doc = pymupdf.open()
    for i in range(pages):
        doc.new_page().insert_text((72, 72), f"page {i + 1} of {path.name}")
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path, **save)
    return path


def test_bad_files_are_rejected_with_reasons_and_the_rest_goes_on(tmp_path):
    root = tmp_path / "corpus"
    _pdf(root / "good.pdf", pages=3)
    _pdf(root / "sub dir/ünï cødé $(x).pdf", pages=2)
    (root / "empty.pdf").write_bytes(b"")
    (root / "noise.pdf").write_bytes(os.urandom(4096))
    good = (root / "good.pdf").read_bytes()
    (root / "truncated.pdf").write_bytes(good[: len(good) // 3])
    _pdf(
        root / "locked.pdf",
        encryption=pymupdf.PDF_ENCRYPT_AES_256,
        user_pw="secret",
        owner_pw="owner",
    )
    outside = _pdf(tmp_path / "outside.pdf")
    (root / "link.pdf").symlink_to(outside)
    (root / "copy of good.pdf").write_bytes(good)

    scan = scan_corpus(root)
    by_path = {r.path: r.reason for r in scan.rejected}
    assert by_path["empty.pdf"] == "empty file (0 bytes)"
    assert by_path["noise.pdf"].startswith("not a readable PDF")
    assert by_path["locked.pdf"].startswith("password-protected PDF: put a decrypted copy")
    assert by_path["link.pdf"] == "symlink points outside the corpus root"
    assert "truncated.pdf" in by_path or any(d.path == "truncated.pdf" for d in scan.documents)

    docs = {d.path: d for d in scan.documents}
    # one document, both names; named by the plain one though the copy sorts first
    assert docs["good.pdf"].paths == ("good.pdf", "copy of good.pdf")
    assert docs["good.pdf"].page_count == 3
    assert docs["sub dir/ünï cødé $(x).pdf"].page_count == 2


def test_fingerprint_changes_with_content_and_not_with_scan_time(tmp_path):
    root = tmp_path / "c"
    _pdf(root / "a.pdf")
    first = scan_corpus(root).fingerprint
    assert scan_corpus(root).fingerprint == first
    _pdf(root / "b.pdf")
    assert scan_corpus(root).fingerprint != first
