"""`evalset build --corpus DIR` on a folder of symlinks to PDFs kept elsewhere, as a user runs it
(a real process, real files, real links): without `--follow-symlinks` the first thing it says is
that every document was rejected, why, and which flag reads them; with the flag it builds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalset_pipeline.core.corpus.documents import OUTSIDE_ROOT
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

EVALSET = str(Path(sys.executable).with_name("evalset"))


def _evalset(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([EVALSET, *args], capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture(scope="module")
def links(tmp_path_factory) -> Path:
    """links/ mirrors kept/'s PDFs as symlinks (the sidecar is copied: it is not a PDF)."""
    root = tmp_path_factory.mktemp("symlinked")
    kept, links = root / "kept", root / "links"
    generate_sample_corpus(kept, entities=1, periods=2)
    for pdf in sorted(kept.rglob("*.pdf")):
        link = links / pdf.relative_to(kept)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(pdf, link)
    if (kept / "metadata.csv").exists():
        shutil.copy(kept / "metadata.csv", links / "metadata.csv")
    return links


def test_without_the_flag_the_first_thing_said_is_why_and_which_flag(links, tmp_path):
    done = _evalset("build", "--corpus", str(links), "--data-dir", str(tmp_path / "data"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    first = next(line for line in done.stderr.splitlines() if line.strip())
    n = len(list(links.rglob("*.pdf")))
    assert first.startswith("error in documents: EveryDocumentRejected: every PDF under"), first
    assert (
        f"({n} rejected, none kept)" in first
        and OUTSIDE_ROOT in first
        and "--follow-symlinks" in first
    )
    assert "no main-slice item survived" not in done.stderr
    # the paragraph's pointer works: every link is listed with its reason
    listed = _evalset("documents", "--rejected", "--json", "--data-dir", str(tmp_path / "data"))
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert len(rows) == n and {r["reason"] for r in rows} == {OUTSIDE_ROOT}


def test_with_the_flag_it_builds_every_linked_document(links, tmp_path):
    done = _evalset(
        "build",
        "--corpus",
        str(links),
        "--data-dir",
        str(tmp_path / "data"),
        "--follow-symlinks",
        "--sample-size",
        "12",
        "--json",
    )
    assert done.returncode == 0, done.stderr[-4000:]
    summary = json.loads(done.stdout)
    assert summary["rejected_documents"] == []
    assert summary["version_id"]
