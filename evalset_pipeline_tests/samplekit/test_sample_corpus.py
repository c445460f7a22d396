"""The synthetic corpus: shape, sidecar, determinism, Korean text, restatement, value variety."""

from __future__ import annotations

import argparse
import csv
import hashlib
import re
from collections import defaultdict
from pathlib import Path

import pymupdf
import pytest

from evalset_pipeline.samplekit.sample_corpus import (
    METRICS,
    SIDECAR_COLUMNS,
    corpus_periods,
    entity_specs,
    generate_sample_corpus,
    plan_sample_corpus,
    render_document,
    sidecar_csv,
)

REPO = Path(__file__).resolve().parents[3]
COMMITTED = REPO / "data" / "sample_corpus"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sample")
    generate_sample_corpus(out, entities=5, periods=2)
    return out


def _rows(root: Path) -> list[dict[str, str]]:
    with open(root / "metadata.csv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_layout_and_sidecar(tiny: Path) -> None:
    with open(tiny / "metadata.csv", encoding="utf-8") as f:
        assert f.readline().strip() == ",".join(SIDECAR_COLUMNS)
    rows = _rows(tiny)
    pdfs = sorted(p.relative_to(tiny).as_posix() for p in tiny.rglob("*.pdf"))
    assert sorted({r["document"] for r in rows}) == pdfs
    assert len(pdfs) == 5 * 2 + 1
    assert len(rows) == 5 * 2 * 10 + 2
    for doc in pdfs:
        with pymupdf.open(tiny / doc) as pdf:
            assert [int(r["page"]) for r in rows if r["document"] == doc] == list(
                range(1, pdf.page_count + 1)
            )
    for r in rows:
        assert re.fullmatch(r"\d{4}-Q[1-4]", r["period"])
        assert r["template_id"] in {"cover", "segment_bar", "kpi_table", "commentary"}
        assert r["metric"] == "" if r["template_id"] == "cover" else r["metric"] in METRICS
        assert r["revision"] in {"original", "restated"}
        assert r["language"] == ("ko" if r["entity"] == "한빛전자" else "en")
        assert r["document"].startswith(
            r["document"].split("/")[0] + "/" + r["document"].split("/")[0] + "_"
        )


def test_pdf_metadata_names_the_entity(tiny: Path) -> None:
    with pymupdf.open(tiny / "acme_group" / "acme_group_2024-Q3.pdf") as pdf:
        assert pdf.metadata["author"] == "Acme Group"
        assert "Acme Group" in pdf.metadata["title"]
        assert pdf.metadata["creationDate"] == "D:20240101000000"


def test_korean_pages_round_trip_hangul(tiny: Path) -> None:
    with pymupdf.open(tiny / "hanbit_electronics" / "hanbit_electronics_2024-Q3.pdf") as pdf:
        chart = pdf[1].get_text()
        prose = pdf[3].get_text()
    for word in ("한빛전자", "부문별 매출", "반도체", "가전", "모바일", "2024년 3분기"):
        assert word in chart or word in prose, word
    assert "억원" in prose and "기록했습니다" in prose


def test_same_arguments_give_identical_bytes(tiny: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    generate_sample_corpus(again, entities=5, periods=2)
    assert _digests(again) == _digests(tiny)


def test_restatement(tiny: Path) -> None:
    plan = plan_sample_corpus(entities=5, periods=2)
    restated = [p for p in plan.pages() if p.revision == "restated"]
    assert [p.document for p in restated] == ["acme_group/acme_group_2024-Q2_restated.pdf"] * 2
    assert [p.template_id for p in restated] == ["segment_bar", "kpi_table"]
    for page in restated:
        original = next(
            p
            for p in plan.pages()
            if p.revision == "original"
            and p.template_id == page.template_id
            and (p.entity, p.metric, p.period) == (page.entity, page.metric, page.period)
        )
        assert [f.current for f in page.figures] != [f.current for f in original.figures]
        assert page.argmax() != original.argmax()  # the restatement is consequential
        assert page.total == original.total  # a reclassification between segments
    with pymupdf.open(tiny / restated[0].document) as pdf:
        text = pdf[0].get_text()
    assert "(restated)" in text and "Restated: figures revised" in text
    assert {r["revision"] for r in _rows(tiny) if r["document"].endswith("_restated.pdf")} == {
        "restated"
    }


def test_pages_print_the_planned_numbers(tiny: Path) -> None:
    plan = plan_sample_corpus(entities=5, periods=2)
    page = plan.page("acme_group/acme_group_2024-Q3.pdf", 3)  # revenue table
    with pymupdf.open(tiny / page.document) as pdf:
        text = pdf[page.page - 1].get_text()
    for fig in page.figures:
        assert (
            f"{fig.current:,.1f}" in text
            and f"{fig.prior:,.1f}" in text
            and f"{fig.yoy:+.1f}%" in text
        )


def test_argmax_changes_across_periods_for_some_series_only() -> None:
    plan = plan_sample_corpus()  # defaults: 4 quarters
    leaders: dict[tuple[str, str], set[str]] = defaultdict(set)
    for page in plan.pages():
        if page.template_id == "segment_bar" and page.revision == "original":
            leaders[(page.entity, page.metric)].add(page.argmax())
    sizes = [len(v) for v in leaders.values()]
    assert any(s == 1 for s in sizes) and any(s > 1 for s in sizes)
    # values are distinct across entities and periods
    values = [f.current for p in plan.pages() if p.template_id == "segment_bar" for f in p.figures]
    assert len(set(values)) > 0.9 * len(values)


def test_default_plan_size_and_periods() -> None:
    plan = plan_sample_corpus()
    assert len(plan.documents) == 21
    assert 150 <= len(plan.pages()) <= 400
    assert list(plan.periods) == ["2023-Q4", "2024-Q1", "2024-Q2", "2024-Q3"]
    assert corpus_periods(6)[0] == "2023-Q2"


def test_more_entities_get_generated_names() -> None:
    specs = entity_specs(9)
    assert [s.name for s in specs[:5]] == [
        "Acme Group",
        "Borealis Holdings",
        "Cobalt Industries",
        "Delta Logistics",
        "한빛전자",
    ]
    assert len({s.slug for s in specs}) == 9 and len({s.name for s in specs}) == 9
    assert all(3 <= len(s.segments) <= 4 for s in specs)
    # adding entities never changes the numbers of the existing ones
    small, big = (
        plan_sample_corpus(entities=2, periods=1),
        plan_sample_corpus(entities=6, periods=1),
    )
    assert small.documents[0].pages == big.documents[0].pages


@pytest.mark.skipif(
    not (COMMITTED / "metadata.csv").exists(), reason="committed sample corpus not present"
)
def test_committed_sample_matches_the_generator() -> None:
    plan = plan_sample_corpus()
    assert (COMMITTED / "metadata.csv").read_text(encoding="utf-8") == sidecar_csv(plan)
    total = sum(p.stat().st_size for p in COMMITTED.rglob("*") if p.is_file())
    assert total <= 5 * 1024 * 1024
    # Spot-check content (not bytes: another PyMuPDF version may serialise the same drawing differently).
    for doc in (plan.documents[0], plan.documents[-1]):
        with (
            pymupdf.open(COMMITTED / doc.path) as committed,
            pymupdf.open(stream=render_document(doc)) as fresh,
        ):
            assert [p.get_text() for p in committed] == [p.get_text() for p in fresh]


def test_cli_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from evalset_pipeline.cli import sample_corpus as cli

    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["sample-corpus", "--out", str(tmp_path / "c"), "--entities", "1", "--periods", "1"]
    )
    assert args.func(args) == 0
    out = capsys.readouterr().out.strip()
    assert out.count("\n") == 0 and "2 documents" in out and "12 pages" in out
    assert (tmp_path / "c" / "metadata.csv").exists()
