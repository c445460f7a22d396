"""The stored text layer: one extraction, rounded word boxes, compact JSON that reads back whole."""

from __future__ import annotations

import pymupdf

from evalset_pipeline.core.pagetext.layer import (
    COORDINATE_DECIMALS,
    encode_text_layer,
    read_text_layer,
    text_layer_of,
)


def _page(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((50.123456, 60.987654), "Net sales 1,234", fontsize=9)
    doc.save(tmp_path / "p.pdf")
    return pymupdf.open(tmp_path / "p.pdf")


def test_word_boxes_are_rounded_and_the_text_matches_the_words(tmp_path):
    with _page(tmp_path) as doc:
        layer = text_layer_of(doc[0])
    assert layer["text"].split() == [w[4] for w in layer["words"]] == ["Net", "sales", "1,234"]
    for w in layer["words"]:
        assert all(round(v, COORDINATE_DECIMALS) == v for v in w[:4])
        assert len(w) == 8  # x0, y0, x1, y1, word, block, line, word number


def test_the_stored_form_is_compact_and_reads_back_equal(tmp_path):
    with _page(tmp_path) as doc:
        layer = text_layer_of(doc[0])
    data = encode_text_layer(layer)
    assert b", " not in data and b": " not in data
    (tmp_path / "l.json").write_bytes(data)
    assert read_text_layer(tmp_path / "l.json") == layer
