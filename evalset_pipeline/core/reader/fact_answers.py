"""Questions on a page's facts (page_reader.PageFacts) answered, written and labelled: the value
asked for the asked entity and period, the question the offline writer picks for a page (with
`unanswerable_every` N, about one in N deliberately asks what the page does not state), and a
candidate's label.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz

from evalset_pipeline.core.hashing import sha256_text
from evalset_pipeline.core.judging.base import (
    Judgment,
    LabelResult,
    PageContext,
    Qualifiers,
    WrittenQuestion,
)
from evalset_pipeline.core.pagetext.page_reader import PageFacts, SeriesValue
from evalset_pipeline.core.pagetext.text import has_hangul
from evalset_pipeline.core.reader.answers import answers_agree
from evalset_pipeline.core.reader.fact_questions import (
    _METRIC_WORD,
    INFERRED_KINDS,
    ParsedQuestion,
    _en_template,
    _ko_template,
    parse_question,
    qualify_question,
)
from evalset_pipeline.core.reader.registrant_names import ENTITY_MATCH, names_registrant
from evalset_pipeline.core.reader.row_labels import norm_words


def _entity_matches(name: str, facts: PageFacts) -> bool:
    wanted = norm_words(name)
    return any(fuzz.ratio(wanted, norm_words(c)) >= ENTITY_MATCH for c in facts.entity_candidates)


def answer_from_facts(
    parsed: ParsedQuestion, facts: PageFacts, context: PageContext | None = None
) -> Judgment:
    """Does the page answer the parsed question, and what does it say? (The judge's rules.)

    `context` is the page's document (registrant, form, period): a page that does not print its
    company's name still belongs to its registrant."""
    if facts.kind not in ("chart", "table", "prose") or not facts.series:
        return Judgment(False, None, f"page is a {facts.kind} page with no figures")
    if parsed.metric is None or parsed.metric != facts.metric:
        return Judgment(
            False, None, f"question asks about {parsed.metric}, page shows {facts.metric}"
        )
    missing = [p for p in parsed.periods if p not in facts.reporting_periods]
    if (
        missing == [facts.prior_period]
        and facts.prior
        and parsed.kind == "value"
        and len(parsed.periods) == 1
    ):
        # A comparative column answers for its own period: the page is evidence, not a distractor.
        key = facts.segment_key(parsed.segment) if parsed.segment is not None else None
        if key is not None and key in facts.prior:
            return _checked_context(parsed, facts, context) or Judgment(
                True,
                facts.prior[key].display,
                f"page's comparative column ({facts.prior_period}) states {key}: "
                f"{facts.prior[key].display}",
            )
    if missing:
        shown = ", ".join(facts.reporting_periods) or "no period"
        return Judgment(False, None, f"question period {', '.join(missing)} not on page ({shown})")
    return _checked_context(parsed, facts, context) or _answer_value(parsed, facts)


def _checked_context(
    parsed: ParsedQuestion, facts: PageFacts, context: PageContext | None = None
) -> Judgment | None:
    """A refusal when the page's entity, revision or extra qualifiers contradict the question, else None."""
    for entity in parsed.entities:
        if not (_entity_matches(entity, facts) or names_registrant(entity, context)):
            return Judgment(
                False, None, f"question entity {entity!r} is not the page's ({facts.entity!r})"
            )
    if parsed.revision == "restated" and not facts.restated:
        return Judgment(
            False, None, "question asks for restated figures; page shows figures as reported"
        )
    if parsed.revision == "original" and facts.restated:
        return Judgment(
            False, None, "question asks for figures as originally reported; page is restated"
        )
    for axis, value in parsed.extras:
        if norm_words(value) not in norm_words(facts.text):
            return Judgment(False, None, f"{axis} {value!r} not stated on page")
    return None


def _answer_value(parsed: ParsedQuestion, facts: PageFacts) -> Judgment:
    key = None
    if parsed.segment is not None:
        key = facts.segment_key(parsed.segment)
        if key is None:
            return Judgment(False, None, f"segment {parsed.segment!r} not on page")
    kind = parsed.kind
    if kind in ("argmax", "argmin"):
        if len(facts.series) < 2:
            return Judgment(False, None, "page shows fewer than two segments")
        pick = max if kind == "argmax" else min
        best = pick(facts.series, key=lambda s: facts.series[s].value)
        return Judgment(
            True,
            best,
            f"{best} has the {'highest' if kind == 'argmax' else 'lowest'} {facts.metric} "
            f"({facts.series[best].display})",
        )
    table: dict[str, SeriesValue] | None = {
        "value": facts.series,
        "prior": facts.prior,
        "yoy": facts.yoy,
    }.get(kind)
    if table is not None and key is not None:
        if key not in table:
            return Judgment(False, None, f"page does not state the {kind} figure for {key}")
        return Judgment(True, table[key].display, f"page states {key}: {table[key].display}")
    if kind == "total":
        if facts.total is None:
            return Judgment(
                False, None, "page does not state a total (it would have to be computed)"
            )
        return Judgment(True, facts.total.display, f"page states the total: {facts.total.display}")
    if kind == "total_yoy":
        if facts.total_yoy is None:
            return Judgment(False, None, "page does not state the change of the total")
        return Judgment(
            True,
            facts.total_yoy.display,
            f"page states the total change: {facts.total_yoy.display}",
        )
    if kind == "share":
        return Judgment(
            False, None, "page does not state segment shares (they would have to be computed)"
        )
    return Judgment(False, None, f"no rule for question kind {kind}")


def _page_hash(facts: PageFacts) -> int:
    """Stable choice key from the page's content (sha256, never Python's salted hash())."""
    return int(sha256_text(facts.text or facts.title)[:16], 16)


def _stated_kinds(facts: PageFacts) -> list[str]:
    kinds = ["argmax", "argmin", "value"] if facts.kind == "chart" else ["argmax", "value"]
    if facts.prior:
        kinds.append("prior")
    if facts.yoy:
        kinds.append("yoy")
    if facts.total is not None:
        kinds.append("total")
    if facts.total_yoy is not None:
        kinds.append("total_yoy")
    return kinds


def _decimals_of(displays: Sequence[str]) -> int:
    best = 0
    for d in displays:
        m = re.search(r"\d[\d,]*\.(\d+)", d)
        if m:
            best = max(best, len(m.group(1)))
    return best


def _with_unit(number: str, unit: str) -> str:
    if not unit:
        return number
    return f"{number}{unit}" if has_hangul(unit) else f"{number} {unit}"


def _inferred_answer(kind: str, facts: PageFacts, segment: str) -> str:
    """What a model would compute from the page (and the page does not print)."""
    values = [v.value for v in facts.series.values()]
    total = sum(values)
    if kind == "total_inferred":
        decimals = _decimals_of([v.display for v in facts.series.values()])
        return _with_unit(f"{total:,.{decimals}f}", facts.unit)
    share = facts.series[segment].value / total * 100 if total else 0.0
    return f"{share:.1f}%"


def compose_question(
    facts: PageFacts, kind: str, segment: str | None = None
) -> WrittenQuestion | None:
    """A question of a given kind about this page, in the page's language, with its answer."""
    if facts.metric is None or not facts.series:
        return None
    language = facts.language if facts.language in _METRIC_WORD else "en"
    segments = list(facts.series)
    segment = segment if segment in facts.series else segments[0]
    metric_word = _METRIC_WORD[language][facts.metric]
    template = _ko_template if language == "ko" else _en_template
    question = template(kind, metric_word, segment)
    if kind in INFERRED_KINDS:
        return WrittenQuestion(question, _inferred_answer(kind, facts, segment), language)
    parsed = parse_question(question)
    if parsed is None:
        return None
    judgment = _answer_value(parsed, facts)
    if not judgment.answers or judgment.answer is None:
        return None
    return WrittenQuestion(question, judgment.answer, language)


def write_question(facts: PageFacts, unanswerable_every: int = 0) -> WrittenQuestion | None:
    """The one question the writer asks about a page (deterministic), or None for covers/other.
    With `unanswerable_every` N > 0, about one page in N is asked something a model would infer
    but the page does not state (a deliberate test of the judge; `VLMConfig.unanswerable_every`)."""
    if (
        facts.kind not in ("chart", "table", "prose")
        or facts.metric is None
        or len(facts.series) < 2
    ):
        return None
    h = _page_hash(facts)
    if unanswerable_every > 0 and h % unanswerable_every == 0:  # inferred, not read
        kind = "share" if facts.total is not None else "total_inferred"
    else:
        kinds = _stated_kinds(facts)
        kind = kinds[(h // 10) % len(kinds)]
    segments = list(facts.series)
    segment = segments[(h // 1000) % len(segments)]
    written = compose_question(facts, kind, segment)
    # About one in four times the writer reads the running header too and names the page's own
    # period and entity, as a careful model sometimes does: those questions need no qualifying.
    if written is not None and (h // 100_000) % 4 == 0 and facts.entity and facts.reporting_periods:
        own = Qualifiers(
            {"period": facts.reporting_periods[0], "entity": facts.entity}, written.language
        )
        written = WrittenQuestion(
            qualify_question(written.question, own), written.answer, written.language
        )
    return written


def label_page(
    question: str, reference: str, facts: PageFacts, context: PageContext | None = None
) -> LabelResult:
    """sufficient: answers, agreeing with the reference; supporting: same subject, not the answer."""
    parsed = parse_question(question)
    if parsed is None:
        return LabelResult("irrelevant", "question form not recognised")
    judgment = answer_from_facts(parsed, facts, context)
    if judgment.answers and answers_agree(judgment.answer, reference):
        return LabelResult("sufficient", f"page states the answer ({judgment.answer})")
    if parsed.metric is None or parsed.metric != facts.metric or not facts.series:
        return LabelResult("irrelevant", f"page is not about {parsed.metric or 'the asked metric'}")
    same_entity = any(_entity_matches(e, facts) for e in parsed.entities)
    same_period = any(p in facts.reporting_periods for p in parsed.periods)
    same_segment = parsed.segment is not None and facts.segment_key(parsed.segment) is not None
    unconstrained = not parsed.entities and not parsed.periods and parsed.segment is None
    if same_entity or same_period or same_segment or unconstrained:
        why = (
            judgment.reason
            if not judgment.answers
            else f"page answers {judgment.answer}, not {reference}"
        )
        return LabelResult(
            "supporting", f"same subject ({parsed.metric}) but not sufficient: {why}"
        )
    return LabelResult("irrelevant", f"same metric, different subject: {judgment.reason}")
