"""Issue 30 #8: pages that can never be asked about are counted, with the reason. A scanned PDF
(pages with no text layer) next to the sample corpus goes through the real `evalset build`; its
summary and `evalset documents` say how many pages have no text layer, how many were never
sampled and why, and name the document none of whose pages was sampled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pymupdf

from evalset_pipeline.core.pipeline.coverage import NO_TEXT
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

EVALSET = str(Path(sys.executable).with_name("evalset"))


def _evalset(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([EVALSET, *args], capture_output=True, text=True, env=env, timeout=900)


def _scanned_pdf(path: Path, pages: int) -> None:
    """Pages of shapes and no text at all, as a scanner's output has no text layer."""
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = pymupdf.open()
    for n in range(pages):
        page = doc.new_page(width=612, height=792)
        for i in range(6):
            page.draw_rect(
                pymupdf.Rect(60, 80 + 100 * i, 300 + 40 * n, 150 + 100 * i), fill=(0.2, 0.3, 0.5)
            )
    doc.save(path)
    doc.close()


def test_pages_without_text_and_never_sampled_are_counted_with_the_reason(tmp_path):
    corpus, data = tmp_path / "corpus", tmp_path / "data"
    generate_sample_corpus(corpus, entities=1, periods=2)
    _scanned_pdf(corpus / "scans" / "scanned.pdf", pages=3)
    done = _evalset("build", "--corpus", str(corpus), "--data-dir", str(data), "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    coverage = json.loads(done.stdout)["coverage"]
    assert coverage["pages_without_text_layer"] == 3
    assert coverage["never_sampled_reasons"][NO_TEXT] == 3
    assert coverage["pages_sampled"] + coverage["pages_never_sampled"] == coverage["pages"]
    assert sum(coverage["never_sampled_reasons"].values()) == coverage["pages_never_sampled"]
    never = {d["path"]: d for d in coverage["documents_never_sampled"]}
    assert never["scans/scanned.pdf"] == {
        "path": "scans/scanned.pdf",
        "pages": 3,
        "without_text_layer": 3,
        "sampled": 0,
    }

    listed = _evalset("documents", "--data-dir", str(data))
    assert listed.returncode == 0, listed.stderr
    assert "3 without a text layer" in listed.stdout
    assert f"never sampled, 3: {NO_TEXT}" in listed.stdout
    assert "scans/scanned.pdf (3 pages, 3 without text)" in listed.stdout
    rows = json.loads(_evalset("documents", "--data-dir", str(data), "--json").stdout)
    scanned = next(r for r in rows if r["path"] == "scans/scanned.pdf")
    assert (scanned["pages_without_text_layer"], scanned["pages_sampled"]) == (3, 0)
