"""The validation algorithm, driven by a scripted judge whose truth table the test controls."""

from dataclasses import replace
from pathlib import Path

from evalset_pipeline.core.judging.base import Judgment, LabelResult, PageContext, PageView
from evalset_pipeline.core.questions.funnel import summarize
from evalset_pipeline.core.questions.validation import (
    DISTRACTOR,
    POOLED,
    Candidate,
    PoolPage,
    validate,
)

AXES = ["period", "metric", "entity"]
GOLD = {"period": "2024-Q3", "metric": "revenue", "entity": "Acme"}


def view(unit: str) -> PageView:
    return PageView(unit, Path(f"{unit}.png"), Path(f"{unit}.json"), unit)


class ScriptedJudge:
    """answers[question] = {unit: answer}; qualify appends the qualifier values (or, for axes in
    `already`, changes nothing: the question named them)."""

    name, model = "scripted", "v1"

    def __init__(self, answers, already=()):
        self.answers = answers
        self.already = set(already)
        self.judge_batches = []
        self.qualified = []

    def prompt_hash(self, task):
        return "h"

    def judge(self, pairs):
        self.judge_batches.append(len(pairs))
        out = []
        for q, page in pairs:
            a = self.answers.get(q, {}).get(page.unit_id)
            out.append(Judgment(a is not None, a, "" if a else "not on page"))
        return out

    def qualify(self, items):
        out = []
        for q, quals in items:
            self.qualified.append(dict(quals.values))
            new = {k: v for k, v in quals.values.items() if k not in self.already}
            tail = ",".join(f"{k}={v}" for k, v in new.items())
            out.append(q.rstrip("?") + f" [{tail}]?" if new else q)
        return out

    def label(self, triples):
        return [LabelResult("irrelevant") for _ in triples]

    def write_questions(self, pages):
        return [None for _ in pages]


def page(unit, axis="period", role=DISTRACTOR, **values):
    sources = ("mined",) if role == DISTRACTOR else ("same_row",)
    return PoolPage(
        view(unit), role, axis if role == DISTRACTOR else "", {**GOLD, **values}, sources
    )


def cand(item, question, answer, pool, **kw):
    return Candidate(item, view(f"{item}-gold"), dict(GOLD), question, answer, "en", pool, **kw)


def test_kept_as_written_when_no_pool_page_answers():
    c = cand("a", "Q?", "Cloud", [page("d1", period="2024-Q2")])
    kept, funnel = validate([c], ScriptedJudge({"Q?": {"a-gold": "Cloud"}}), AXES)
    assert [(k.slice, k.question, k.qualified_axes) for k in kept] == [("main", "Q?", [])]
    assert summarize(funnel)["kept_as_written"] == 1


def test_gold_checked_first_and_dropped_when_it_cannot_answer():
    c = cand("a", "Q?", "Cloud", [page("d1", period="2024-Q2")])
    judge = ScriptedJudge({"Q?": {"d1": "Cloud"}})
    kept, funnel = validate([c], judge, AXES)
    assert kept == []
    assert summarize(funnel)["dropped_reasons"] == {"gold does not answer its own question": 1}
    assert judge.judge_batches == [1, 0]  # the pool is never asked once the gold failed


def test_gold_answer_must_agree_with_writer():
    c = cand("a", "Q?", "Cloud", [])
    kept, funnel = validate([c], ScriptedJudge({"Q?": {"a-gold": "Devices"}}), AXES)
    assert kept == []
    assert "disagrees" in next(iter(summarize(funnel)["dropped_reasons"]))


def test_the_company_is_named_first_when_the_corpus_holds_several():
    c = cand("a", "Q?", "Cloud", [page("d1", period="2024-Q2")], name_entity=True)
    named = "Q [entity=Acme]?"
    judge = ScriptedJudge({named: {"a-gold": "Cloud"}})
    kept, funnel = validate([c], judge, AXES, max_rewrites=0)
    assert [(k.question, k.original_question, k.qualified_axes) for k in kept] == [
        (named, "Q?", ["entity"])
    ]
    assert judge.qualified == [{"entity": "Acme"}]  # before any judging, outside the rewrite budget


def test_a_page_that_answers_otherwise_gets_the_gold_values_where_it_differs():
    c = cand("a", "Q?", "Cloud", [page("d1", period="2024-Q2")])
    qualified = "Q [period=2024-Q3]?"
    judge = ScriptedJudge(
        {"Q?": {"a-gold": "Cloud", "d1": "Devices"}, qualified: {"a-gold": "Cloud"}}
    )
    kept, funnel = validate([c], judge, AXES)
    assert [(k.slice, k.question, k.original_question, k.qualified_axes) for k in kept] == [
        ("main", qualified, "Q?", ["period"])
    ]
    assert summarize(funnel)["qualified"] == 1


def test_pages_that_answer_alike_after_qualifying_are_evidence_not_ambiguity():
    # The next quarter's page prints this quarter as its comparative: once the question names the
    # quarter, it still answers, with the gold's answer. It is another page that answers.
    pool = [page("next", period="2024-Q4"), page("other", period="2024-Q2")]
    qualified = "Q [period=2024-Q3]?"
    judge = ScriptedJudge(
        {
            "Q?": {"a-gold": "Cloud", "next": "Cloud", "other": "Devices"},
            qualified: {"a-gold": "Cloud", "next": "Cloud"},
        }
    )
    kept, _ = validate([cand("a", "Q?", "Cloud", pool)], judge, AXES)
    assert len(kept) == 1 and kept[0].slice == "main"
    assert kept[0].acceptable == ["a-gold", "next"]  # gold first, then the other answering page


def test_still_ambiguous_goes_to_underspecified_slice_with_acceptable_set():
    pool = [page("d1", period="2024-Q2"), page("d2", period="2024-Q2")]
    qualified = "Q [period=2024-Q3]?"
    answers = {"a-gold": "Cloud", "d1": "Devices", "d2": "Devices"}
    kept, funnel = validate(
        [cand("a", "Q?", "Cloud", pool)], ScriptedJudge({"Q?": answers, qualified: answers}), AXES
    )
    assert len(kept) == 1 and kept[0].slice == "underspecified"
    assert kept[0].question == "Q?"  # the user's phrasing, not a failed rewrite
    assert kept[0].acceptable == ["a-gold", "d1", "d2"]
    assert summarize(funnel)["underspecified"] == 1


def test_drop_policy_drops_with_the_answering_axis_as_reason():
    c = cand("a", "Q?", "Cloud", [page("d1", period="2024-Q2")])
    answers = {"a-gold": "Cloud", "d1": "Devices"}
    judge = ScriptedJudge({"Q?": answers, "Q [period=2024-Q3]?": answers})
    kept, funnel = validate([c], judge, AXES, underspecified="drop")
    assert kept == []
    assert summarize(funnel)["dropped_reasons"] == {"answerable from distractor on axis=period": 1}


def test_a_rewrite_that_changes_nothing_settles_on_the_judgments_already_made():
    # A table question names its period already: asking for it again changes nothing, so the
    # later filing of the same company that prints another figure for that period restates it.
    pool = [page("later", period="2024-Q4"), page("d", axis="metric", metric="cost")]
    judge = ScriptedJudge({"Q?": {"a-gold": "5", "later": "6"}}, already={"period"})
    kept, funnel = validate([cand("a", "Q?", "5", pool)], judge, AXES)
    assert [(k.slice, k.question, k.revisions, k.qualified_axes) for k in kept] == [
        ("main", "Q?", ["later"], [])
    ]
    assert judge.judge_batches == [1, 2]  # judged once: the no-op rewrite asked nothing again


def test_the_heading_of_the_gold_figure_is_the_last_qualifier():
    # Another segment's table prints the same row for the same company and period: no axis tells
    # it apart, the gold's section does.
    pool = [page("seg", role=POOLED), page("d", axis="metric", metric="cost")]
    under = "Q [section=Aerospace]?"
    judge = ScriptedJudge({"Q?": {"a-gold": "5", "seg": "9"}, under: {"a-gold": "5"}})
    kept, _ = validate([cand("a", "Q?", "5", pool, section="Aerospace")], judge, AXES)
    assert [(k.slice, k.question, k.qualified_axes) for k in kept] == [("main", under, ["section"])]


def _outlined(pool_page: PoolPage, section: str) -> PoolPage:
    return replace(pool_page, page=replace(pool_page.page, context=PageContext(section=section)))


def test_the_outline_section_names_a_segment_the_table_heading_does_not():
    # The segment's table is titled "Selected metrics" like the firm's; the PDF's outline puts
    # the gold page under "Investment Bank" and the firm-wide page elsewhere: that names it.
    gold = replace(view("a-gold"), context=PageContext(section="Investment Bank"))
    firm = _outlined(page("firm", role=POOLED), "Average balance sheets")
    pool = [firm, page("d", axis="metric", metric="cost")]
    under = "Q [section=Investment Bank]?"
    judge = ScriptedJudge({"Q?": {"a-gold": "5", "firm": "9"}, under: {"a-gold": "5"}})
    c = replace(cand("a", "Q?", "5", pool, section="Selected metrics"), gold=gold)
    kept, _ = validate([c], judge, AXES)
    assert [(k.slice, k.question) for k in kept] == [("main", under)]
    # A conflicting page under the same outline heading is not told apart by it: the table's
    # heading is asked instead.
    same = _outlined(page("firm", role=POOLED), "Investment Bank")
    under_table = "Q [section=Selected metrics]?"
    judge = ScriptedJudge({"Q?": {"a-gold": "5", "firm": "9"}, under_table: {"a-gold": "5"}})
    c = replace(c, pool=[same, page("d", axis="metric", metric="cost")])
    kept, _ = validate([c], judge, AXES)
    assert [(k.slice, k.question) for k in kept] == [("main", under_table)]


def test_without_a_heading_a_conflict_no_axis_explains_is_underspecified():
    pool = [page("seg", role=POOLED), page("d", axis="metric", metric="cost")]
    judge = ScriptedJudge({"Q?": {"a-gold": "5", "seg": "9"}})
    kept, funnel = validate([cand("a", "Q?", "5", pool)], judge, AXES)
    assert [k.slice for k in kept] == ["underspecified"]
    final = [f for f in funnel if f.stage == "final"][0]
    assert (
        "pool pages found by" in final.reason and "no axis value tells them apart" in final.reason
    )


def test_an_item_whose_every_mined_negative_answers_alike_has_no_hard_negative_left():
    pool = [page("twin", role=DISTRACTOR, axis="period")]
    judge = ScriptedJudge({"Q?": {"a-gold": "5", "twin": "5"}})
    kept, funnel = validate([cand("a", "Q?", "5", pool)], judge, AXES)
    assert kept == []
    assert "no hard negative left" in next(iter(summarize(funnel)["dropped_reasons"]))


def test_all_items_of_a_round_go_to_the_judge_in_one_batch():
    cands = [cand(str(i), "Q?", "Cloud", [page(f"d{i}", period="2024-Q2")]) for i in range(5)]
    answers = {"Q?": {f"{i}-gold": "Cloud" for i in range(5)}}
    judge = ScriptedJudge(answers)
    validate(cands, judge, AXES)
    assert judge.judge_batches == [5, 5]


def test_a_page_printing_the_gold_figure_for_its_row_is_evidence_even_if_the_judge_refuses():
    # The judge reads "under X" literally; the evidence index says the page prints the gold's
    # figure for the gold's row and period: the same fact, another page that answers.
    pool = [page("statement", role=POOLED), page("d", axis="metric", metric="cost")]
    judge = ScriptedJudge({"Q?": {"a-gold": "80"}})
    c = cand("a", "Q?", "80", pool, evidence=frozenset({"statement"}))
    kept, _ = validate([c], judge, AXES)
    assert [(k.slice, k.acceptable) for k in kept] == [("main", ["a-gold", "statement"])]


def test_a_renamed_filers_page_differs_on_the_period_only():
    # the gold's filer under its former name (one filer: its document lists the other name)
    gold_doc = PageContext("Acme", aliases=("Acme Systems",))
    old_doc = PageContext("Acme Systems", aliases=("Acme",))
    d1 = PoolPage(
        replace(view("d1"), context=old_doc),
        DISTRACTOR,
        "period",
        {**GOLD, "entity": "Acme Systems", "period": "2023-Q3"},
        ("mined",),
    )
    c = Candidate(
        "a", replace(view("a-gold"), context=gold_doc), dict(GOLD), "Q?", "Cloud", "en", [d1]
    )
    qualified = "Q [period=2024-Q3]?"
    judge = ScriptedJudge(
        {"Q?": {"a-gold": "Cloud", "d1": "Devices"}, qualified: {"a-gold": "Cloud"}}
    )
    kept, _ = validate([c], judge, AXES)
    assert [(k.question, k.qualified_axes) for k in kept] == [(qualified, ["period"])]


def test_a_page_of_the_other_statements_basis_gets_the_gold_basis_named():
    """A filing printing consolidated and separate statements prints one row twice: the page of
    the other basis answering otherwise makes the gold's basis the qualifier (no configured
    axis tells them apart: same company, period and measure)."""
    separate = PoolPage(view("sep"), POOLED, "", {**GOLD, "basis": "separate"}, ("same_row",))
    c = Candidate(
        "a",
        view("a-gold"),
        {**GOLD, "basis": "consolidated"},
        "Q?",
        "Cloud",
        "ko",
        [page("d1", period="2024-Q2"), separate],
    )
    qualified = "Q [basis=consolidated]?"
    judge = ScriptedJudge(
        {"Q?": {"a-gold": "Cloud", "sep": "Devices"}, qualified: {"a-gold": "Cloud"}}
    )
    kept, _ = validate([c], judge, AXES)
    assert [(k.slice, k.question, k.qualified_axes) for k in kept] == [
        ("main", qualified, ["basis"])
    ]
