"""The validation algorithm, driven by a scripted judge whose truth table the test controls."""

from pathlib import Path

from evalset_pipeline.core.questions.funnel import summarize
from evalset_pipeline.core.questions.validation import Candidate, Distractor, validate
from evalset_pipeline.core.vlm.base import Judgment, LabelResult, PageView

AXES = ["period", "metric", "entity"]


def view(unit: str) -> PageView:
    return PageView(unit, Path(f"{unit}.png"), Path(f"{unit}.json"), unit)


class ScriptedJudge:
    """answers[question] = {unit: answer}; qualify appends the qualifier values."""

    name, model = "scripted", "v1"

    def __init__(self, answers):
        self.answers = answers
        self.judge_batches = []

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
        return [
            q.rstrip("?") + " [" + ",".join(f"{k}={v}" for k, v in quals.values.items()) + "]?"
            for q, quals in items
        ]

    def label(self, triples):
        return [LabelResult("irrelevant") for _ in triples]

    def write_questions(self, pages):
        return [None for _ in pages]


def cand(item, question, answer, distractors):
    gold_values = {"period": "2024-Q3", "metric": "revenue", "entity": "Acme"}
    return Candidate(
        item,
        view(f"{item}-gold"),
        gold_values,
        question,
        answer,
        "en",
        [Distractor(view(u), axis, vals) for u, axis, vals in distractors],
    )


def period_distractor(unit):
    return (unit, "period", {"period": "2024-Q2", "metric": "revenue", "entity": "Acme"})


def test_kept_as_written_when_no_distractor_answers():
    c = cand("a", "Q?", "Cloud", [period_distractor("d1")])
    kept, funnel = validate([c], ScriptedJudge({"Q?": {"a-gold": "Cloud"}}), AXES)
    assert [(k.slice, k.question, k.qualified_axes) for k in kept] == [("main", "Q?", [])]
    assert summarize(funnel)["kept_as_written"] == 1


def test_gold_checked_first_and_dropped_when_it_cannot_answer():
    c = cand("a", "Q?", "Cloud", [period_distractor("d1")])
    judge = ScriptedJudge({"Q?": {"d1": "Cloud"}})
    kept, funnel = validate([c], judge, AXES)
    assert kept == []
    assert summarize(funnel)["dropped_reasons"] == {"gold does not answer its own question": 1}
    assert judge.judge_batches == [1, 0]  # distractors never asked once the gold failed


def test_gold_answer_must_agree_with_writer():
    c = cand("a", "Q?", "Cloud", [])
    kept, funnel = validate([c], ScriptedJudge({"Q?": {"a-gold": "Devices"}}), AXES)
    assert kept == []
    assert "disagrees" in next(iter(summarize(funnel)["dropped_reasons"]))


def test_qualified_on_the_axis_where_the_answering_distractor_differs():
    c = cand("a", "Q?", "Cloud", [period_distractor("d1")])
    qualified = "Q [period=2024-Q3]?"
    judge = ScriptedJudge(
        {"Q?": {"a-gold": "Cloud", "d1": "Cloud"}, qualified: {"a-gold": "Cloud"}}
    )
    kept, funnel = validate([c], judge, AXES)
    assert [(k.slice, k.question, k.original_question, k.qualified_axes) for k in kept] == [
        ("main", qualified, "Q?", ["period"])
    ]
    assert summarize(funnel)["qualified"] == 1


def test_still_ambiguous_goes_to_underspecified_slice_with_acceptable_set():
    c = cand("a", "Q?", "Cloud", [period_distractor("d1"), period_distractor("d2")])
    qualified = "Q [period=2024-Q3]?"
    everyone = {"a-gold": "Cloud", "d1": "Cloud", "d2": "Cloud"}
    kept, funnel = validate([c], ScriptedJudge({"Q?": everyone, qualified: everyone}), AXES)
    assert len(kept) == 1 and kept[0].slice == "underspecified"
    assert kept[0].question == "Q?"  # the user's phrasing, not a failed rewrite
    assert kept[0].acceptable == ["a-gold", "d1", "d2"]
    assert summarize(funnel)["underspecified"] == 1


def test_drop_policy_drops_with_the_answering_axis_as_reason():
    c = cand("a", "Q?", "Cloud", [period_distractor("d1")])
    everyone = {"a-gold": "Cloud", "d1": "Cloud"}
    judge = ScriptedJudge({"Q?": everyone, "Q [period=2024-Q3]?": everyone})
    kept, funnel = validate([c], judge, AXES, underspecified="drop")
    assert kept == []
    assert summarize(funnel)["dropped_reasons"] == {"answerable from distractor on axis=period": 1}


def test_all_items_of_a_round_go_to_the_judge_in_one_batch():
    cands = [cand(str(i), "Q?", "Cloud", [period_distractor(f"d{i}")]) for i in range(5)]
    answers = {"Q?": {f"{i}-gold": "Cloud" for i in range(5)}}
    judge = ScriptedJudge(answers)
    validate(cands, judge, AXES)
    assert judge.judge_batches == [5, 5]
