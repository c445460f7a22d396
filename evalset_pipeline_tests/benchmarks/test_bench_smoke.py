"""The benchmark modules import and their `run()` works end to end at a tiny size (a smoke test,
not a measurement: the real sizes take minutes and live in `python -m benchmarks`)."""

from __future__ import annotations

import json

import pytest

from benchmarks import __main__ as bench_main
from benchmarks import _util


@pytest.fixture(autouse=True)
def _scratch(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALSET_BENCH_DIR", str(tmp_path / "bench"))


def test_runner_lists_every_benchmark_in_order():
    names = bench_main.available()
    for name in ("render", "embed", "rebuild", "scale", "score"):
        assert name in names
    assert (
        names.index("render") < names.index("embed") < names.index("rebuild") < names.index("scale")
    )


def test_runner_rejects_unknown_names(capsys):
    assert bench_main.main(["no_such_benchmark"]) == 2
    assert bench_main.main(["--bogus"]) == 2


def test_render_tiny():
    from benchmarks import render

    r = render.run(entities=1, periods=2, repeats=1)
    assert r["pages"] == 22 and r["ratio"] > 0 and r["ratio_cpu"] > 0
    json.dumps(r)


def test_render_memory_tiny():
    """The render-memory benchmark runs end to end; its bounds are figures, not asserts."""
    from benchmarks import render_memory

    r = render_memory.run(short=20, long=40)
    assert r["pages"] == [20, 40] and r["rejected"] == 0 and r["self_mb"][1] >= r["self_mb"][0] > 0
    json.dumps(r)


def test_embed_tiny():
    from benchmarks import embed

    r = embed.run(entities=1, periods=2, repeats=1)
    assert r["pages"] == 22 and r["ratio"] > 0
    assert r["max_abs_vector_diff"] < 1e-4  # ours computes the very vectors plain encode() does


def test_rebuild_tiny():
    from benchmarks import rebuild

    corpus, _ = _util.cached_corpus(1, 2)
    r = rebuild.run(corpus=corpus, rounds=1, rebuilds=1, sample_size=4)
    assert r["rebuild_work"] == {"renders": 0, "embeddings": 0, "model_calls": 0, "new_versions": 0}
    assert "page_renders" in r["rebuild_steps_s"]


def test_templates_tiny():
    """The template-discovery benchmark end to end, past exact_limit so the k-means/IVF graph runs."""
    from benchmarks import templates

    r = templates.run(n=6_000)
    assert r["pages"] == 6_000 and r["clustering"]["method"] == "knn" and 0 < r["ratio"] < 1
    assert (
        sum(r["page_kinds"].values()) == 6_000
        and r["sources"]["structure"] == r["page_kinds"]["statement"]
    )
    assert r["ari_by_kind"]["statement"] == 1.0 and r["ari_by_kind"]["visual"] > 0.9
    json.dumps(r)


def test_scale_aggregates(monkeypatch):
    """The growth arithmetic on canned builds; the child-process build itself runs in test_child_build."""
    from benchmarks import scale

    def fake(entities, periods, sample_size):
        pages = entities * 10
        steps = {s: 0.1 * pages for s in _util.STAGES}
        return {
            "pages": pages,
            "wall_s": 0.2 * pages,
            "process_wall_s": 0.2 * pages + 1,
            "steps_s": steps,
            "peak_rss_mb": 500.0,
            "peak_pss_mb": 400.0,
            "peak_process_rss_mb": 300.0,
            "model_calls": 3,
        }

    monkeypatch.setattr(scale, "_build", fake)
    r = scale.run(sizes=((1, 1), (4, 1)))
    assert (
        r["growth_per_page"]["page_renders"] == 1.0 and r["linear_goal_met"] and r["rss_goal_met"]
    )
    assert "page_renders" in r["judged_stages"] and "validated_questions" not in r["judged_stages"]
    assert r["pages_per_s"] == 5.0


def test_child_build_measures_the_tree():
    corpus, pages = _util.cached_corpus(1, 1)
    # Four pages, not two: a two-page draw of one filing can land on pages whose every question a
    # sibling also answers (all underspecified), and the build then rightly publishes nothing.
    r = _util.build_in_child(_util.bench_root() / "child", corpus, sample_size=4)
    assert r["pages"] == pages and r["rendered"] == pages
    assert r["peak_rss_mb"] > 50 and set(_util.STAGES) <= set(r["steps_s"])


# --- the optimisations the benchmarks led to -----------------------------------------------------


def test_png_writer_keeps_mupdf_pixels():
    """pages._png (deflate level 1, unfiltered rows) decodes to exactly MuPDF's pixels and dpi."""
    import io

    import numpy as np
    import pymupdf
    from PIL import Image

    from evalset_pipeline.core.render.pages import _png

    corpus, _ = _util.cached_corpus(1, 1)
    with pymupdf.open(sorted(corpus.rglob("*.pdf"))[0]) as doc:
        for page in list(doc)[:3]:
            for pix in (
                page.get_pixmap(dpi=96, alpha=False),
                page.get_pixmap(
                    matrix=pymupdf.Matrix(0.07, 0.07), colorspace=pymupdf.csGRAY, alpha=False
                ),
            ):
                ours, ref = (
                    Image.open(io.BytesIO(_png(pix))),
                    Image.open(io.BytesIO(pix.tobytes("png"))),
                )
                assert (ours.mode, ours.size, ours.info.get("dpi")) == (
                    ref.mode,
                    ref.size,
                    ref.info.get("dpi"),
                )
                assert np.array_equal(np.asarray(ours), np.asarray(ref))


def test_text_vectors_are_cached(tmp_path):
    """encode_texts_cached loads the model only for texts it has not seen."""
    import numpy as np

    from evalset_pipeline.core.index.embeddings import encode_texts_cached

    loads, encoded = [], []

    class Fake:
        def encode(self, texts, **kw):
            encoded.extend(texts)
            return np.asarray([[len(t), 1.0] for t in texts], dtype=np.float32)

    def load(name):
        loads.append(name)
        return Fake()

    a = encode_texts_cached("m", ["aa", "b", "aa"], tmp_path, load=load)
    assert loads == ["m"] and encoded == ["aa", "b"] and a[:, 0].tolist() == [2, 1, 2]
    b = encode_texts_cached("m", ["b", "aa"], tmp_path, load=load)
    assert loads == ["m"] and b[:, 0].tolist() == [1, 2]  # nothing new: no model load
    encode_texts_cached("m", ["ccc"], tmp_path, load=load)
    assert loads == ["m", "m"] and encoded[-1] == "ccc"


def test_realdocs_pairwise_statement_figures():
    from benchmarks.realdocs import _pairs

    truth = {
        ("a", 1): "balance_sheet",
        ("b", 1): "balance_sheet",
        ("a", 2): "cash_flows",
        ("b", 2): "cash_flows",
    }
    perfect = {k: f"statement:{v}" for k, v in truth.items()}
    assert (_pairs(perfect, truth)["precision"], _pairs(perfect, truth)["recall"]) == (1.0, 1.0)
    lumped = {k: "one" for k in truth}  # 6 pairs share a template, 2 of them are the same statement
    assert (_pairs(lumped, truth)["precision"], _pairs(lumped, truth)["recall"]) == (
        round(2 / 6, 4),
        1.0,
    )


def test_realdocs_statements_are_keyed_by_basis_where_the_truth_has_one(tmp_path):
    """A consolidated and a separate balance sheet are two statements: one template for both is
    a wrong pair where the truth has a `basis` column; without it, the type alone is the key."""
    from benchmarks.realdocs import _pairs, _statement_truth

    (tmp_path / "with.csv").write_text(
        "document,page,statement,continued,also,heading,basis\n"
        "a,1,balance_sheet,n,,,consolidated\na,2,balance_sheet,y,,,consolidated\n"
        "a,9,balance_sheet,n,,,separate\n",
        encoding="utf-8",
    )
    (tmp_path / "without.csv").write_text(
        "document,page,statement,continued,also,heading\na,1,balance_sheet,n,,\n"
        "a,9,balance_sheet,n,,\n",
        encoding="utf-8",
    )
    truth, keyed_by = _statement_truth(tmp_path / "with.csv")
    assert keyed_by == "statement,basis" and truth[("a", 9)] == "balance_sheet:separate"
    one_template = {k: "statement:balance_sheet" for k in truth}
    assert _pairs(one_template, truth)["precision"] == round(1 / 3, 4)
    plain, keyed_by = _statement_truth(tmp_path / "without.csv")
    assert keyed_by == "statement" and set(plain.values()) == {"balance_sheet"}


def test_realdocs_unit_check_reads_a_korean_answer_unit_as_printed():
    from benchmarks.realdocs import _check_unit

    page = "10. 재고자산 (단위 : 백만원) 상품 20,391"
    assert _check_unit("20,391 백만원", page, 0, 0) == (1, 1)
    assert _check_unit("20,391 천원", page, 0, 0) == (1, 0)  # the page prints no 천원
    assert _check_unit("20,391 (USD millions)", page, 0, 0) == (1, 0)


def test_realdocs_unit_check_reads_the_unit_line_above_the_figure():
    from benchmarks.realdocs import _check_unit

    # two tables: amounts in 백만원, then companies counted under their own line
    page = "(단위 : 백만원)\n자산총액 43,291\n(단위 : 사)\n상장 1\n비상장 40"
    assert _check_unit("43,291 백만원", page, 0, 0) == (1, 1)
    assert _check_unit("40 백만원", page, 0, 0) == (1, 0)  # counted, not money
    assert _check_unit("40 개사", page, 0, 0) == (1, 1)
    assert _check_unit("40", page, 0, 0) == (1, 0)  # the count needs its unit
    tonnes = "(단위 : 톤(tCO2-eq))\n무상할당 배출권 35,684"
    assert _check_unit("35,684", tonnes, 0, 0) == (1, 0)
    assert _check_unit("35,684 톤", tonnes, 0, 0) == (1, 1)
    # no unit line: the page must print the unit after a figure, not inside "95백만원"
    sheet = "사업비 1,477,009\n호당 평균 95백만원 이하"
    assert _check_unit("1,477,009 원", sheet, 0, 0) == (1, 0)
    assert _check_unit("1,477,009 백만원", sheet, 0, 0) == (1, 1)
    # a page printing no unit: the money its document's unit lines all name
    bare = "사업비 584,906"
    assert _check_unit("584,906 백만원", bare, 0, 0) == (1, 0)
    assert _check_unit("584,906 백만원", bare, 0, 0, None, {"백만원"}) == (1, 1)
    assert _check_unit("584,906 원", bare, 0, 0, None, {"백만원"}) == (1, 0)
    assert _check_unit("584,906 백만원", bare, 0, 0, None, {"백만원", "원"}) == (1, 0)
    # a count under a money line is a count column's: its header says so, not checked here
    assert _check_unit("398 명", "(단위 : 백만원)\n관리직 398 25,255", 0, 0) == (0, 0)


def test_realdocs_refuses_a_corpus_with_a_sidecar_and_options_need_one_benchmark(tmp_path, capsys):
    from benchmarks.realdocs import _folders

    (tmp_path / "metadata.csv").write_text("document,page\n")
    (tmp_path / "documents.csv").write_text("document\n")
    with pytest.raises(ValueError, match="metadata.csv exists"):
        _folders(tmp_path)
    assert bench_main.main(["--corpus", str(tmp_path)]) == 2
    assert "exactly one benchmark" in capsys.readouterr().err


def test_hardening_needs_the_questions_beside_the_pdfs(tmp_path):
    from benchmarks import hardening

    (tmp_path / "pdfs").mkdir()
    with pytest.raises(ValueError, match="questions.jsonl"):
        hardening.run(corpus=str(tmp_path))


def test_coldbuild_tiny(tmp_path, monkeypatch):
    from benchmarks import coldbuild
    from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

    monkeypatch.setenv("EVALSET_BENCH_QUICK", "1")
    corpus = tmp_path / "corpus"
    generate_sample_corpus(corpus, entities=1, periods=2)
    r = coldbuild.run(corpus=corpus)
    assert r["pages"] == 22 and r["pages_per_s"] > 0 and 0 < r["baseline_share"] < 1
    assert 0 < r["printed_lines_sample"] <= r["printed_lines_goal"]
    json.dumps(r)


def test_imports_tiny():
    """The large-import benchmark end to end on 30 rows: the child import succeeds and is measured."""
    from benchmarks import imports

    r = imports.run(rows=30)
    assert r["rows"] == 30 and r["imported"] == 30 and r["peak_rss_gb"] > 0
    assert r["projected_1m_rows_s"] > 0 and isinstance(r["met"], bool)
    json.dumps(r)
