"""A question written on a DART note page names the statements' basis of the section the page
sits in ("3. 연결재무제표 주석" / "5. 재무제표 주석"): the writer knows what the page adds to its
document, as the judge does (reading: "사용제한 금융자산 중 단기금융자산" asked of a consolidated
note with no basis, while the separate note printed another figure)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from evalset_pipeline.core.tables import read_rows
from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline_tests.support.dart_pages import (
    EDGES,
    PAGES,
    SECTION_CONSOLIDATED_NOTES,
    SECTION_SEPARATE_NOTES,
    Item,
    dart_pages,
    draw_dart_filing,
)

pytestmark = pytest.mark.build


def _restricted_assets(section: str, figures: tuple[str, str]) -> list[list[Item]]:
    """A note of balances at the quarter's end, in its section: nothing on it says the basis."""
    return [
        [("l", 50.0, section)],
        [("l", 50.0, "31. 우발상황과 약정사항")],
        [("l", 50.0, "31.2 사용제한 금융자산의 내용은 다음과 같습니다.")],
        [("r", EDGES[1], "(단위:백만원)")],
        [("c", EDGES[0] - 25, "당분기말"), ("c", EDGES[1] - 25, "전기말")],
        [("l", 52.0, "단기금융자산"), ("r", EDGES[0], figures[0]), ("r", EDGES[1], figures[1])],
    ]


def test_a_note_pages_question_names_its_sections_basis(tmp_path: Path) -> None:
    corpus, data_dir = tmp_path / "corpus", tmp_path / "data"
    corpus.mkdir()
    pages = dart_pages()
    for n, (what, _, basis) in enumerate(PAGES):
        if what.endswith("notes"):
            consolidated = basis == "consolidated"
            pages[n] = _restricted_assets(
                SECTION_CONSOLIDATED_NOTES if consolidated else SECTION_SEPARATE_NOTES,
                ("4,623", "3,822") if consolidated else ("2,817", "2,780"),
            )
    draw_dart_filing(corpus / "filing.pdf", pages)
    result = dg.materialize(
        all_assets,
        resources={
            "settings": PipelineSettings(
                data_dir=str(data_dir), corpus_dir=str(corpus), sample_size=len(PAGES)
            ),
            "vlm": VLMResource(),
            "embedder": EmbedderResource(),
        },
        selection=dg.AssetSelection.assets("candidate_questions").upstream(),
    )
    assert result.success
    tables = data_dir / "artifacts" / "tables"
    page_of = {r["unit_id"]: r["page_number"] for r in read_rows(tables / "page_renders.parquet")}
    written = {
        page_of[r["gold_unit_id"]]: r["question"]
        for r in read_rows(tables / "candidate_questions.parquet")
        if r["written"]
    }
    notes = {
        n: basis for n, (what, _, basis) in enumerate(PAGES, start=1) if what.endswith("notes")
    }
    assert set(notes) <= set(written), written
    said = {"consolidated": "연결 기준", "separate": "별도 기준"}
    for page, basis in notes.items():
        assert said[basis] in written[page], (page, written[page])
