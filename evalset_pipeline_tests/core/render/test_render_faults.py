"""Render faults: a bad page costs that page, a dead worker costs one page, a full disk stops the run
cleanly, a killed run leaves nothing half-written and its finished pages are reused, and memory
does not grow with document length or page size."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from evalset_pipeline.core.corpus.documents import scan_corpus
from evalset_pipeline.core.render import pages as P
from evalset_pipeline.core.render.pages import RenderSettings, RenderWriteError, render_corpus
from evalset_pipeline_tests.support import bad_corpus as bc

SMALL = RenderSettings(dpi=36, max_pixels=200_000)


def _render(root: Path, data: Path, **kw):
    scan = scan_corpus(root)
    return scan, render_corpus(
        scan.documents, root, data, data / "renders", kw.pop("settings", SMALL), **kw
    )


def _files(data: Path) -> list[Path]:
    return sorted(p for p in (data / "renders").rglob("*") if p.is_file() and p.name != P.LOCK_FILE)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_page_that_fails_is_rejected_alone(tmp_path, workers):
    root = tmp_path / "c"
    bc.deep_forms_page_pdf(root / "deep.pdf", pages=4, bad=2)
    bc.not_a_stream_page_pdf(root / "blank.pdf", pages=3, bad=3)
    bc.simple_pdf(root / "fine.pdf", 2)
    _, out = _render(root, tmp_path / "d", workers=workers)
    rejected = {(r.document_path, r.page_number): r.reason for r in out.rejected}
    assert set(rejected) == {("deep.pdf", 2), ("blank.pdf", 3)}
    assert "FzErrorLimit" in rejected[("deep.pdf", 2)]  # MuPDF raised on that page
    assert (
        "renders blank and MuPDF reported errors" in rejected[("blank.pdf", 3)]
    )  # MuPDF only warned
    assert sorted((p.document_path, p.page_number) for p in out.pages) == [
        ("blank.pdf", 1),
        ("blank.pdf", 2),
        ("deep.pdf", 1),
        ("deep.pdf", 3),
        ("deep.pdf", 4),
        ("fine.pdf", 1),
        ("fine.pdf", 2),
    ]


def test_huge_and_strip_pages_stay_within_the_pixel_budget(tmp_path):
    root = tmp_path / "c"
    bc.huge_page_pdf(root / "huge.pdf")
    bc.simple_pdf(root / "strip.pdf", 1, size=(1, 14400))
    _, out = _render(root, tmp_path / "d", settings=RenderSettings(dpi=96, max_pixels=1_000_000))
    assert not out.rejected
    for p in out.pages:
        assert p.width_px * p.height_px <= 1_000_000  # rounding to whole pixels included
        with Image.open(tmp_path / "d" / p.thumb_path) as im:
            assert im.size[0] * im.size[1] <= P.THUMB_MAX_PIXELS
    huge = next(p for p in out.pages if p.document_path == "huge.pdf")
    assert huge.width_px == huge.height_px >= 990  # scaled down to the budget, not to a sliver
    strip = next(p for p in out.pages if p.document_path == "strip.pdf")
    assert (
        strip.height_px > 10_000
    )  # 14,400 pt tall at 96 dpi would be 19,200 px: capped, still tall


def test_a_worker_that_dies_costs_only_its_page(tmp_path, monkeypatch):
    root = tmp_path / "c"
    bc.simple_pdf(root / "a.pdf", 5, label="a")
    bc.simple_pdf(root / "b.pdf", 3, label="b")
    real = P._render_page

    def crashing(doc, number, settings):  # inherited by forked workers
        if number == 3 and doc.page_count == 5:
            os._exit(7)  # what a segfault inside MuPDF looks like from outside
        return real(doc, number, settings)

    monkeypatch.setattr(P, "_render_page", crashing)
    _, out = _render(root, tmp_path / "d", workers=2)
    assert [(r.document_path, r.page_number) for r in out.rejected] == [("a.pdf", 3)]
    assert "renderer process died" in out.rejected[0].reason
    assert len(out.pages) == 7


def test_enospc_stops_the_run_cleanly_and_finished_pages_are_reused(tmp_path, monkeypatch):
    """Full disk by injection: the writer raises ENOSPC on the 8th file (page 3's PNG)."""
    root, data = tmp_path / "c", tmp_path / "d"
    bc.simple_pdf(root / "doc.pdf", 5)
    real, calls = P.write_bytes_atomic, []

    def full_disk(final, payload, **kwargs):
        calls.append(final)
        if len(calls) == 8:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(final))
        return real(final, payload, **kwargs)

    monkeypatch.setattr(P, "write_bytes_atomic", full_disk)
    with pytest.raises(
        RenderWriteError, match=r"out of disk space writing page renders .*doc\.pdf page 3"
    ):
        _render(root, data, workers=1)
    names = [p.name for p in _files(data)]
    assert (
        len(names) == 6 and sum(n.endswith(".thumb.png") for n in names) == 2
    )  # pages 1-2 whole, page 3 gone
    assert not list((data / "renders" / P.TMP_DIR).iterdir())

    monkeypatch.setattr(P, "write_bytes_atomic", real)  # space freed
    _, again = _render(root, data, workers=1)
    assert (again.recovered, again.rendered, len(again.pages)) == (2, 3, 5)
    _, clean = _render(root, tmp_path / "clean", workers=1)
    assert [p.render_hash for p in again.pages] == [p.render_hash for p in clean.pages]


def _can_mount_tmpfs(where: Path) -> bool:
    if os.geteuid() != 0:
        return False
    where.mkdir(parents=True, exist_ok=True)
    ok = (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)], capture_output=True
        ).returncode
        == 0
    )
    if ok:
        subprocess.run(["umount", str(where)], check=True)
    return ok


@pytest.mark.e2e  # a build on a real 1 MiB tmpfs
def test_real_full_disk_fails_the_build_with_a_clear_message(tmp_path, capsys):
    """A 1 MiB tmpfs as the data directory; a page whose PNG (~2 MB of noise) cannot fit."""
    data = tmp_path / "data"
    if not _can_mount_tmpfs(data):
        pytest.skip(
            "needs root and permission to mount tmpfs (the injected-ENOSPC test covers the logic)"
        )
    import pymupdf

    from evalset_pipeline.cli.main import main

    root = tmp_path / "corpus"
    bc.simple_pdf(root / "a_good.pdf", 3, label="good")
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_image(
        page.rect, pixmap=pymupdf.Pixmap(pymupdf.csRGB, 800, 1000, bc.noise(3, 800 * 1000 * 3), 0)
    )
    doc.save(root / "z_noise.pdf")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(data)], check=True)
    try:
        rc = main(["build", "--corpus", str(root), "--data-dir", str(data), "--workers", "2"])
        err = capsys.readouterr().err
        assert rc == 1
        assert "error in page_renders: " in err and "RenderWriteError: out of disk space" in err, (
            err[-2000:]
        )
        files = _files(data / "artifacts")
        assert (
            len([f for f in files if f.suffix == ".png" and not f.name.endswith(".thumb.png")]) == 3
        )
        for f in files:  # what was written is whole
            if f.suffix == ".png":
                with Image.open(f) as im:
                    im.load()
        assert not list((data / "artifacts/renders" / P.TMP_DIR).iterdir())
        assert (data / "artifacts/tables/documents.parquet").exists()
    finally:
        subprocess.run(["umount", "-l", str(data)], check=False)


_KILLABLE = """
import sys
from evalset_pipeline.core.corpus.documents import scan_corpus
from evalset_pipeline.core.render.pages import RenderSettings, render_corpus
root, data = sys.argv[1], sys.argv[2]
scan = scan_corpus(root)
render_corpus(scan.documents, root, data, data + "/renders", RenderSettings(dpi=36, max_pixels=200_000), workers=1)
"""


@pytest.mark.e2e  # a rendering subprocess killed mid-way
def test_sigkill_mid_render_leaves_no_partial_files_and_the_rerun_reuses_finished_pages(tmp_path):
    root, data = tmp_path / "c", tmp_path / "d"
    bc.long_pdf(root / "long.pdf", pages=400, size=(300, 300))
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLABLE, str(root), str(data)], env={**os.environ}
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list((data / "renders").glob("*/*.png"))) < 120:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = {
        p.name[:32] for p in (data / "renders").glob("*/*.png") if not p.name.endswith(".thumb.png")
    }
    assert 0 < len(finished) < 400, "kill the render while it is running"

    _, out = _render(root, data, workers=1)
    assert out.recovered == len(finished) and out.rendered == 400 - len(finished)
    assert not list((data / "renders" / P.TMP_DIR).iterdir()), "a dead run's temp files are swept"
    assert len(_files(data)) == 3 * 400  # exactly one png, thumb and json per page: no duplicates
    _, clean = _render(root, tmp_path / "clean", workers=1)
    assert [(p.render_key, p.render_hash, p.text_hash) for p in out.pages] == [
        (p.render_key, p.render_hash, p.text_hash) for p in clean.pages
    ]
