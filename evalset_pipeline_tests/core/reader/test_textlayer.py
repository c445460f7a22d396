"""The textlayer backend against the generator's ground truth.

The point of these tests is the point of the project: a question written from one page is
usually answerable by its look-alike siblings, and only qualifiers make it unique.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pymupdf
import pytest

from evalset_pipeline.core.judging.base import PageContext, PageView, Qualifiers, VLMBackend
from evalset_pipeline.core.pagetext.fiscal import FiscalCalendar
from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline.core.reader.answers import answers_agree
from evalset_pipeline.core.reader.table_questions import parse_table_question
from evalset_pipeline.core.reader.textlayer import (
    TextLayerBackend,
    compose_question,
    parse_question,
    qualify_question,
)
from evalset_pipeline.samplekit.sample_corpus import (
    UNANSWERABLE_EVERY,
    PageRecord,
    plan_sample_corpus,
    render_document,
)

Corpus = list[tuple[PageRecord, PageView]]
INFERRED_MARKERS = ("across all segments", "share of total", "합계", "비중")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Every page of a 5-entity, 2-period corpus as a PageView over a JSON text layer."""
    root = tmp_path_factory.mktemp("textlayers")
    plan = plan_sample_corpus(entities=5, periods=2)
    out: Corpus = []
    for doc_plan in plan.documents:
        with pymupdf.open(stream=render_document(doc_plan), filetype="pdf") as pdf:
            for rec, page in zip(doc_plan.pages, pdf, strict=False):
                unit_id = f"{rec.document}#{rec.page}"
                path = root / (unit_id.replace("/", "_").replace("#", "_") + ".json")
                path.write_text(
                    json.dumps(text_layer_of(page), ensure_ascii=False), encoding="utf-8"
                )
                view = PageView(unit_id, root / "none.png", path, f"h{len(out)}", _context(rec))
                out.append((rec, view))
    return out


def _context(rec: PageRecord) -> PageContext:
    """The page's document as the pipeline gives it (`document_facts`): a KPI table's "Q3 2024"
    columns are dated by the filer's fiscal calendar, which only the document says."""
    year, quarter = rec.period.split("-Q")
    end = FiscalCalendar().quarter_end(int(year), int(quarter))
    return PageContext(rec.entity, "10-Q", rec.period, end.isoformat())


@pytest.fixture(scope="module")
def backend() -> TextLayerBackend:
    return TextLayerBackend(unanswerable_every=UNANSWERABLE_EVERY)  # the sample's own setting


@pytest.fixture(scope="module")
def written(corpus: Corpus, backend: TextLayerBackend) -> list:
    return backend.write_questions([pv for _, pv in corpus])


def _answering(backend: TextLayerBackend, question: str, pages: Corpus) -> list[PageRecord]:
    judgments = backend.judge([(question, pv) for _, pv in pages])
    return [rec for (rec, _), j in zip(pages, judgments, strict=False) if j.answers]


def _siblings(corpus: Corpus, rec: PageRecord) -> Corpus:
    return [(r, pv) for r, pv in corpus if r.template_id == rec.template_id]


def _is_inferred(question: str) -> bool:
    return any(m in question for m in INFERRED_MARKERS)


def test_identity_and_prompt_hash(backend: TextLayerBackend) -> None:
    for method in (
        "prompt_hash",
        "write_questions",
        "judge",
        "label",
        "qualify",
    ):  # VLMBackend is structural
        assert callable(getattr(backend, method)) and hasattr(VLMBackend, method)
    assert (backend.name, backend.model) == ("textlayer", "textlayer-v1")
    hashes = {t: backend.prompt_hash(t) for t in ("write", "judge", "label", "qualify")}
    assert len(set(hashes.values())) == 4 and all(len(h) == 16 for h in hashes.values())
    assert TextLayerBackend().prompt_hash("judge") == hashes["judge"]
    with pytest.raises(ValueError):
        backend.prompt_hash("dance")


def test_writer_asks_like_a_single_page_vlm(corpus: Corpus, written: list) -> None:
    for (rec, _), wq in zip(corpus, written, strict=False):
        if rec.template_id == "cover":
            assert wq is None
            continue
        assert wq is not None, rec
        assert wq.language == rec.language
    # A KPI table dated by its quarter columns ("Q3 2024", dated by the filer's calendar) is asked
    # one cell at a time, for the quarter its column names: the page's own or the year before.
    tables = [
        (rec, parse_table_question(wq.question))
        for (rec, _), wq in zip(corpus, written, strict=False)
        if wq is not None and parse_table_question(wq.question) is not None
    ]
    assert {rec.template_id for rec, _ in tables} == {"kpi_table"}
    for rec, tq in tables:
        assert tq is not None and tq.months == 3 and tq.end is not None
        assert tq.end.year in (int(rec.period[:4]), int(rec.period[:4]) - 1)
    # Otherwise a single-page writer usually names no entity and no period; now and then it reads
    # the running header and names the page's own (never another page's).
    prose = [
        (rec, wq)
        for (rec, _), wq in zip(corpus, written, strict=False)
        if wq is not None and parse_table_question(wq.question) is None
    ]
    naming = [(rec, wq) for rec, wq in prose if rec.entity in wq.question]
    bare = [wq for rec, wq in prose if rec.entity not in wq.question]
    assert all(not parse_question(wq.question).periods for wq in bare)
    assert all(parse_question(wq.question).periods == (rec.period,) for rec, wq in naming)
    assert 0.1 <= len(naming) / (len(naming) + len(bare)) <= 0.4
    inferred = sum(1 for wq in written if wq is not None and _is_inferred(wq.question))
    total = sum(1 for wq in written if wq is not None)
    assert 0.03 <= inferred / total <= 0.2  # about one in ten
    assert [
        wq
        for wq in TextLayerBackend(unanswerable_every=UNANSWERABLE_EVERY).write_questions(
            [pv for _, pv in corpus]
        )
    ] == written  # deterministic


def test_korean_pages_get_korean_questions(corpus: Corpus, written: list) -> None:
    ko = [
        wq
        for (rec, _), wq in zip(corpus, written, strict=False)
        if rec.language == "ko" and wq is not None
    ]
    assert ko and all(wq.language == "ko" and re.search("[가-힣]", wq.question) for wq in ko)
    assert all(wq.question.endswith("니까?") for wq in ko)  # 입니까? / 변했습니까?
    assert not any(re.search("[A-Za-z]", wq.question) for wq in ko)


def test_gold_answers_its_own_stated_question(
    corpus: Corpus, backend: TextLayerBackend, written: list
) -> None:
    for (rec, pv), wq in zip(corpus, written, strict=False):
        if wq is None or _is_inferred(wq.question):
            continue
        [judgment] = backend.judge([(wq.question, pv)])
        assert judgment.answers, (rec, wq, judgment)
        assert answers_agree(judgment.answer, wq.answer), (wq, judgment)
        [label] = backend.label([(wq.question, wq.answer, pv)])
        assert label.label == "sufficient"


def test_inferred_questions_are_not_answered_by_their_gold(
    corpus: Corpus, backend: TextLayerBackend, written: list
) -> None:
    inferred = [
        (rec, pv, wq)
        for (rec, pv), wq in zip(corpus, written, strict=False)
        if wq is not None and _is_inferred(wq.question)
    ]
    assert inferred
    for rec, pv, wq in inferred:
        [judgment] = backend.judge([(wq.question, pv)])
        assert not judgment.answers and "computed" in judgment.reason, (wq, judgment)
        if "across all segments" in wq.question:
            assert answers_agree(
                wq.answer,
                f"{rec.total:,.1f}"
                if rec.language == "en" and rec.metric != "headcount"
                else f"{rec.total:,.0f}",
            )
        assert backend.label([(wq.question, wq.answer, pv)])[0].label != "sufficient"


def test_unqualified_argmax_is_answered_by_a_sibling_of_another_period(
    corpus: Corpus, backend: TextLayerBackend
) -> None:
    same_answer = different_answer = 0
    for rec, pv in corpus:
        if rec.template_id != "segment_bar" or rec.revision != "original":
            continue
        facts = backend.facts(pv)
        wq = compose_question(facts, "argmax")
        assert wq is not None and wq.answer == rec.argmax()
        sibling = next(
            (r, p)
            for r, p in corpus
            if r.template_id == rec.template_id
            and r.entity == rec.entity
            and r.metric == rec.metric
            and r.period != rec.period
            and r.revision == "original"
        )
        [judgment] = backend.judge([(wq.question, sibling[1])])
        assert judgment.answers, "the sibling answers: the question is under-specified"
        assert judgment.answer == sibling[0].argmax()
        if answers_agree(judgment.answer, wq.answer):
            same_answer += 1
        else:
            different_answer += 1
    assert same_answer and different_answer  # the variety that makes validation real work


def test_qualifiers_make_the_gold_the_only_answer(
    corpus: Corpus, backend: TextLayerBackend, written: list
) -> None:
    checked = 0
    for (rec, pv), wq in zip(corpus, written, strict=False):
        if wq is None or _is_inferred(wq.question):
            continue
        siblings = _siblings(corpus, rec)
        before = _answering(backend, wq.question, siblings)
        assert rec in before
        if rec.entity not in wq.question and parse_table_question(wq.question) is None:
            # under-specified as written (a table question names its period; its row, a segment
            # only this company has, may already be its own)
            assert len(before) > 1
        [qualified] = backend.qualify(
            [(wq.question, Qualifiers({"period": rec.period, "entity": rec.entity}, rec.language))]
        )
        after = _answering(backend, qualified, siblings)
        twins = [r for r in after if r.revision != rec.revision]
        assert [r for r in after if r.revision == rec.revision] == [rec], qualified
        if twins:  # a restatement pair: only the revision axis tells them apart
            [qualified] = backend.qualify(
                [(qualified, Qualifiers({"revision": rec.revision}, rec.language))]
            )
            assert _answering(backend, qualified, siblings) == [rec], qualified
        [judgment] = backend.judge([(qualified, pv)])
        assert answers_agree(judgment.answer, wq.answer)
        checked += 1
    assert checked > 50


def test_requalifying_never_duplicates(corpus: Corpus) -> None:
    en = Qualifiers({"period": "2024-Q3", "entity": "Acme Group"}, "en")
    once = qualify_question("Which segment had the highest revenue?", en)
    assert once == "Which segment had the highest revenue in Q3 2024 for Acme Group?"
    assert qualify_question(once, en) == once
    both = qualify_question(once, Qualifiers({"revision": "restated"}, "en"))
    assert both == "Which segment had the highest revenue in Q3 2024 for Acme Group as restated?"
    assert qualify_question(both, Qualifiers({"revision": "original"}, "en")).endswith(
        "as originally reported?"
    )
    ko = Qualifiers({"period": "2024-Q3", "entity": "한빛전자"}, "ko")
    once_ko = qualify_question("매출이 가장 높은 부문은 어디입니까?", ko)
    assert once_ko == "2024년 3분기 한빛전자의 매출이 가장 높은 부문은 어디입니까?"
    assert qualify_question(once_ko, ko) == once_ko
    value_ko = qualify_question("반도체 부문의 영업이익은 얼마입니까?", ko)
    parsed = parse_question(value_ko)
    assert parsed is not None and parsed.segment == "반도체" and parsed.entities == ("한빛전자",)
    assert parsed.periods == ("2024-Q3",) and parsed.metric == "operating income"
    # a metric qualifier is added only when the question names no metric
    assert "in terms of" not in qualify_question(
        "Which segment had the highest revenue?", Qualifiers({"metric": "operating income"}, "en")
    )
    assert (
        qualify_question(
            "Which segment was largest?", Qualifiers({"metric": "operating income"}, "en")
        )
        == "Which segment was largest in terms of operating income?"
    )


def test_restatement_needs_the_revision_qualifier(
    corpus: Corpus, backend: TextLayerBackend
) -> None:
    restated = next(
        (r, pv) for r, pv in corpus if r.revision == "restated" and r.template_id == "segment_bar"
    )
    original = next(
        (r, pv)
        for r, pv in corpus
        if r.revision == "original"
        and r.template_id == "segment_bar"
        and (r.entity, r.metric, r.period)
        == (restated[0].entity, restated[0].metric, restated[0].period)
    )
    base = "Which segment had the highest revenue in Q2 2024 for Acme Group"
    as_restated, as_reported = f"{base} as restated?", f"{base} as originally reported?"
    judged = backend.judge(
        [
            (as_restated, restated[1]),
            (as_restated, original[1]),
            (as_reported, restated[1]),
            (as_reported, original[1]),
        ]
    )
    assert [j.answers for j in judged] == [True, False, False, True]
    assert judged[0].answer == restated[0].argmax() and judged[3].answer == original[0].argmax()


def test_entity_qualifier_is_fuzzy_but_not_loose(corpus: Corpus, backend: TextLayerBackend) -> None:
    rec, pv = next(
        (r, p)
        for r, p in corpus
        if r.entity == "Acme Group"
        and r.template_id == "segment_bar"
        and r.metric == "revenue"
        and r.period == "2024-Q3"
    )
    asks = [
        "Which segment had the highest revenue for ACME group?",
        "Which segment had the highest revenue for Acme Groupe?",
        "Which segment had the highest revenue for Borealis Holdings?",
    ]
    assert [j.answers for j in backend.judge([(q, pv) for q in asks])] == [True, True, False]


def test_labels(corpus: Corpus, backend: TextLayerBackend) -> None:
    gold, gold_pv = next(
        (r, p)
        for r, p in corpus
        if r.entity == "Delta Logistics"
        and r.template_id == "kpi_table"
        and r.metric == "revenue"
        and r.period == "2024-Q3"
    )
    q = qualify_question(
        compose_question(backend.facts(gold_pv), "value", "Services").question,
        Qualifiers({"period": "2024-Q3", "entity": "Delta Logistics"}),
    )
    ref = backend.judge([(q, gold_pv)])[0].answer
    other_period = next(
        p
        for r, p in corpus
        if r.entity == gold.entity
        and r.template_id == gold.template_id
        and r.metric == gold.metric
        and r.period != gold.period
    )
    other_entity_same_segment = next(
        p
        for r, p in corpus
        if r.entity == "Acme Group"
        and r.template_id == "kpi_table"
        and r.metric == "revenue"
        and r.period == "2024-Q3"
    )
    other_metric = next(
        p
        for r, p in corpus
        if r.entity == gold.entity
        and r.template_id == gold.template_id
        and r.metric == "headcount"
        and r.period == gold.period
    )
    cover = next(p for r, p in corpus if r.template_id == "cover")
    labels = backend.label(
        [
            (q, ref, p)
            for p in (gold_pv, other_period, other_entity_same_segment, other_metric, cover)
        ]
    )
    assert [lab.label for lab in labels] == [
        "sufficient",
        "supporting",
        "supporting",
        "irrelevant",
        "irrelevant",
    ]
    assert all(lab.rationale and "\n" not in lab.rationale for lab in labels)


def test_unknown_forms_and_broken_pages(
    corpus: Corpus, backend: TextLayerBackend, tmp_path: Path
) -> None:
    _, pv = corpus[1]
    [j] = backend.judge([("Who is the CEO?", pv)])
    assert not j.answers and "unrecognised" in j.reason
    assert not backend.judge([("Which segment had the highest revenue as of soon-ish?", pv)])[
        0
    ].answers
    missing = PageView("x", tmp_path / "x.png", tmp_path / "missing.json", "h")
    assert backend.write_questions([missing]) == [None]
    assert not backend.judge([("Which segment had the highest revenue?", missing)])[0].answers
    assert (
        backend.label([("Which segment had the highest revenue?", "Cloud", missing)])[0].label
        == "irrelevant"
    )


def test_facts_are_cached_per_text_layer(corpus: Corpus) -> None:
    small = TextLayerBackend(cache_size=2)
    pvs = [pv for _, pv in corpus[:3]]
    first = small.facts(pvs[0])
    assert small.facts(pvs[0]) is first
    small.facts(pvs[1])
    small.facts(pvs[2])  # evicts pvs[0]
    assert small.facts(pvs[0]) is not first and small.facts(pvs[0]) == first


def test_a_kpi_tables_question_is_answered_by_the_same_quarters_chart(
    corpus: Corpus, backend: TextLayerBackend, written: list
) -> None:
    """A KPI table's one-cell question ("What were Devices under Revenue by segment for the three
    months ended June 30, 2024?") is answered by the same document's chart of that measure, which
    prints the quarter's segments without a table's row and column: sufficient, as the page
    reader reads it. The chart of another measure is not."""
    checked = 0
    for (rec, _), wq in zip(corpus, written, strict=False):
        tq = parse_table_question(wq.question) if wq is not None else None
        if tq is None or rec.template_id != "kpi_table" or tq.end is None:
            continue
        if tq.end.year != int(rec.period[:4]):
            continue  # the prior-year column: the chart shows the page's own quarter only
        charts = [
            (r, pv)
            for r, pv in corpus
            if r.document == rec.document and r.template_id == "segment_bar"
        ]
        labels = backend.label([(wq.question, wq.answer, pv) for _, pv in charts])
        by_metric = {r.metric: lab.label for (r, _), lab in zip(charts, labels, strict=True)}
        assert by_metric[rec.metric] == "sufficient", (wq.question, by_metric)
        assert all(v != "sufficient" for m, v in by_metric.items() if m != rec.metric)
        checked += 1
    assert checked >= 3


def test_the_rules_hash_covers_every_module_the_reader_runs():
    from evalset_pipeline.core.reader import textlayer
    from evalset_pipeline.core.sources import PACKAGE_DIR, import_closure

    covered = {p.relative_to(PACKAGE_DIR).as_posix() for p in import_closure(textlayer.__name__)}
    # no hand-kept list: every reader module and the page-text primitives it builds on
    reader = {f"core/reader/{p.name}" for p in (PACKAGE_DIR / "core" / "reader").glob("*.py")}
    assert reader - {"core/reader/answer_evidence.py"} <= covered
    assert {"core/pagetext/korean.py", "core/pagetext/periods.py"} <= covered
    assert not any(p.startswith("core/vlm/") for p in covered)  # the client is not the rules


def test_unanswerable_questions_are_a_setting_off_by_default(corpus: Corpus):
    pages = [pv for _, pv in corpus]
    real = TextLayerBackend().write_questions(pages)
    sample = TextLayerBackend(unanswerable_every=UNANSWERABLE_EVERY).write_questions(pages)
    assert not any(wq is not None and _is_inferred(wq.question) for wq in real)
    assert any(wq is not None and _is_inferred(wq.question) for wq in sample)
    # the writer's cache key says which it is; the judge's does not change
    on, off = TextLayerBackend(unanswerable_every=10), TextLayerBackend()
    assert on.prompt_hash("write") != off.prompt_hash("write")
    assert on.prompt_hash("judge") == off.prompt_hash("judge")
