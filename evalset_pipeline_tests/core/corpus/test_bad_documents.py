"""Every kind of bad file is rejected with its own reason at scan time; the rest of the corpus goes on."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from evalset_pipeline.core.corpus.documents import scan_corpus
from evalset_pipeline_tests.support import bad_corpus as bc


def _reasons(root: Path) -> dict[str, tuple[str, str]]:
    return {r.path: (r.reason, r.stage) for r in scan_corpus(root).rejected}


def test_each_bad_file_gets_its_reason_and_good_files_are_kept(tmp_path):
    root = tmp_path / "c"
    bc.simple_pdf(root / "good.pdf", 2, label="good")
    (root / "empty.pdf").write_bytes(b"")
    (root / "cut.pdf").write_bytes(bc.truncated_pdf(bc.simple_pdf(None, 6, label="t")))
    bc.encrypted_pdf(root / "locked.pdf")
    (root / "noise.pdf").write_bytes(bc.noise())
    (root / "header then noise.pdf").write_bytes(b"%PDF-1.7\n" + bc.noise(5) + b"\n%%EOF\n")
    (root / "header, noise, cut.pdf").write_bytes(b"%PDF-1.7\n" + bc.noise(6))
    (root / "zero.pdf").write_bytes(bc.zero_page_pdf())
    os.mkfifo(root / "pipe.pdf")
    (root / "ignored.txt").write_text("not a pdf")

    reasons = _reasons(root)
    assert reasons["empty.pdf"] == ("empty file (0 bytes)", "open")
    assert reasons["cut.pdf"][0].startswith(("truncated PDF", "truncated or damaged PDF"))
    assert reasons["header, noise, cut.pdf"][0].startswith("truncated or damaged PDF")
    assert reasons["locked.pdf"][1] == "open"
    assert reasons["locked.pdf"][0].startswith("password-protected PDF: put a decrypted copy")
    assert "qpdf --decrypt" in reasons["locked.pdf"][0]
    assert reasons["noise.pdf"][0].startswith("not a readable PDF (no %PDF- header")
    assert reasons["header then noise.pdf"][0].startswith("not a readable PDF (")
    assert str(root) not in reasons["header then noise.pdf"][0]  # no absolute paths in reasons
    assert reasons["zero.pdf"] == ("PDF has no pages", "open")
    assert reasons["pipe.pdf"] == ("not a regular file", "scan")
    scan = scan_corpus(root)
    assert [d.path for d in scan.documents] == ["good.pdf"] and scan.pages == 2
    for r in scan.rejected:
        assert (r.sha256 != "") == (r.stage == "open")  # content-identified once it could be read


def test_symlinks_outside_loops_and_inside(tmp_path):
    root, outside = tmp_path / "c", tmp_path / "outside"
    bc.simple_pdf(outside / "secret.pdf", 1, label="secret")
    bc.simple_pdf(root / "real.pdf", 1, label="real")
    (root / "escape.pdf").symlink_to(outside / "secret.pdf")
    (root / "escape dir").symlink_to(outside, target_is_directory=True)
    (root / "relative escape.pdf").symlink_to("../outside/secret.pdf")
    (root / "loop.pdf").symlink_to("loop.pdf")
    (root / "dangling.pdf").symlink_to("nowhere.pdf")
    (root / "alias.pdf").symlink_to(
        "real.pdf"
    )  # inside the root: the same document under two names

    scan = scan_corpus(root)
    reasons = {r.path: r.reason for r in scan.rejected}
    for name in ("escape.pdf", "escape dir", "relative escape.pdf"):
        assert reasons[name] == "symlink points outside the corpus root"
    assert reasons["loop.pdf"].startswith("cannot read file")
    assert reasons["dangling.pdf"].startswith("cannot read file")
    assert [d.paths for d in scan.documents] == [("real.pdf", "alias.pdf")]  # the shorter name
    assert not any("secret" in d.title for d in scan.documents)


def test_duplicates_and_odd_names(tmp_path):
    root = tmp_path / "c"
    data = bc.simple_pdf(root / "a/original.pdf", 3, label="dup")
    (root / "b").mkdir()
    (root / "b/copy.pdf").write_bytes(data)
    for i, name in enumerate(bc.WEIRD_NAMES):
        bc.simple_pdf(root / name, 1, label=f"odd {i}")
    raw = os.fsencode(root) + b"/caf\xe9.pdf"  # a Latin-1 name: not valid UTF-8
    with open(raw, "wb") as f:
        f.write(bc.simple_pdf(None, 1, label="latin1"))

    scan = scan_corpus(root)
    docs = {d.path: d for d in scan.documents}
    assert docs["a/original.pdf"].paths == ("a/original.pdf", "b/copy.pdf")
    assert all(name in docs for name in bc.WEIRD_NAMES)
    assert [(r.path, r.reason) for r in scan.rejected] == [
        ("caf\\xe9.pdf", "file name is not valid UTF-8")
    ]
    # Storable: every recorded string is valid UTF-8.
    for d in scan.documents:
        for p in d.paths:
            p.encode("utf-8")


def test_unlistable_folder_is_reported(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root can list any folder")
    root = tmp_path / "c"
    bc.simple_pdf(root / "ok.pdf", 1)
    (root / "locked").mkdir()
    bc.simple_pdf(root / "locked/hidden.pdf", 1)
    os.chmod(root / "locked", 0)
    try:
        reasons = _reasons(root)
    finally:
        os.chmod(root / "locked", 0o755)
    assert reasons["locked"][0].startswith("cannot list folder")


def test_scan_is_identical_when_repeated_and_independent_of_location(tmp_path):
    root = tmp_path / "c"
    bc.simple_pdf(root / "x.pdf", 2)
    (root / "bad.pdf").write_bytes(b"")
    first = scan_corpus(root)
    shutil.copytree(root, tmp_path / "moved")
    again = scan_corpus(tmp_path / "moved")
    assert first.fingerprint == again.fingerprint
    assert first.rejected == again.rejected
