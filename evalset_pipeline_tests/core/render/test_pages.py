import json
from pathlib import Path

import pymupdf
from PIL import Image

from evalset_pipeline.core.corpus.documents import scan_corpus
from evalset_pipeline.core.render.pages import RenderSettings, render_corpus


def _corpus(root: Path) -> Path:
    root.mkdir(parents=True)
    doc = pymupdf.open()
    for i in range(4):
        doc.new_page().insert_text((72, 100), f"Revenue by segment, page {i + 1}", fontsize=18)
    big = doc.new_page(width=20000, height=20000)  # would be ~28 gigapixels at 96 dpi
    big.insert_text((100, 100), "huge page", fontsize=200)
    doc.save(root / "a.pdf")
    return root


def test_renders_are_content_addressed_reused_and_pixel_bounded(tmp_path):
    corpus = _corpus(tmp_path / "corpus")
    data = tmp_path / "data"
    scan = scan_corpus(corpus)
    settings = RenderSettings(dpi=72, max_pixels=1_000_000)
    first = render_corpus(
        scan.documents, corpus, data, data / "artifacts/renders", settings, workers=1
    )
    assert first.rendered == 5 and first.reused == 0 and not first.rejected
    for p in first.pages:
        assert (data / p.render_path).exists() and (data / p.thumb_path).exists()
        assert p.width_px * p.height_px <= 1_000_000 * 1.01
        with Image.open(data / p.render_path) as im:
            assert im.size == (p.width_px, p.height_px)
    layer = json.loads((data / first.pages[0].text_path).read_text())
    assert "Revenue by segment, page 1" in layer["text"]
    assert layer["words"] and len(layer["words"][0]) == 8

    again = render_corpus(
        scan.documents,
        corpus,
        data,
        data / "artifacts/renders",
        settings,
        previous=first.pages,
        workers=1,
    )
    assert again.rendered == 0 and again.reused == 5
    assert [p.render_hash for p in again.pages] == [p.render_hash for p in first.pages]

    other = render_corpus(
        scan.documents,
        corpus,
        data,
        data / "artifacts/renders",
        RenderSettings(dpi=50),
        previous=first.pages,
        workers=1,
    )
    assert other.rendered == 5  # different settings, different keys


def test_parallel_render_matches_serial(tmp_path):
    corpus = _corpus(tmp_path / "corpus")
    scan = scan_corpus(corpus)
    serial = render_corpus(scan.documents, corpus, tmp_path / "d1", tmp_path / "d1/r", workers=1)
    parallel = render_corpus(scan.documents, corpus, tmp_path / "d2", tmp_path / "d2/r", workers=2)
    assert [p.render_hash for p in serial.pages] == [p.render_hash for p in parallel.pages]
