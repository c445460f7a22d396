"""The offline writer's question forms about a page's facts (page_reader.PageFacts): a closed set
of English and Korean templates, the parser that reads them back (with the qualifiers `qualify`
adds: period, entity, metric, revision) and the rewriting that adds those qualifiers.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from evalset_pipeline.core.judging.base import Qualifiers
from evalset_pipeline.core.pagetext.korean import subject_particle as _subj
from evalset_pipeline.core.pagetext.korean import topic_particle as _topic
from evalset_pipeline.core.pagetext.page_reader import METRIC_SYNONYMS
from evalset_pipeline.core.pagetext.periods import (
    display_period,
    find_periods,
    normalize_period,
    parse_periods,
)
from evalset_pipeline.core.pagetext.text import HANGUL_SYLLABLES, has_hangul
from evalset_pipeline.core.reader.registrant_names import ENTITY_MATCH
from evalset_pipeline.core.reader.row_labels import norm_words

QUESTION_KINDS = (
    "argmax",
    "argmin",
    "value",
    "prior",
    "yoy",
    "total",
    "total_yoy",
    "total_inferred",
    "share",
)


INFERRED_KINDS = ("total_inferred", "share")


AXIS_ORDER = ("metric", "period", "entity", "revision")


_METRIC_WORD = {
    "en": {"revenue": "revenue", "operating income": "operating income", "headcount": "headcount"},
    "ko": {"revenue": "매출", "operating income": "영업이익", "headcount": "임직원 수"},
}


def _en_template(kind: str, metric: str, segment: str) -> str:
    m, s = metric, segment
    return {
        "argmax": f"Which segment had the highest {m}?",
        "argmin": f"Which segment had the lowest {m}?",
        "value": f"What was the {m} of the {s} segment?",
        "prior": f"What was the prior-year {m} of the {s} segment?",
        "yoy": f"What was the year-over-year change in {s} {m}?",
        "total": f"What was the total {m}?",
        "total_yoy": f"By how much did total {m} change year over year?",
        "total_inferred": f"What was the total {m} across all segments?",
        "share": f"What share of total {m} came from the {s} segment?",
    }[kind]


def _ko_template(kind: str, metric: str, segment: str) -> str:
    m, s = metric, segment
    many = metric == "임직원 수"  # people are "many/few", money is "high/low"
    return {
        "argmax": f"{m}{_subj(m)} 가장 {'많은' if many else '높은'} 부문은 어디입니까?",
        "argmin": f"{m}{_subj(m)} 가장 {'적은' if many else '낮은'} 부문은 어디입니까?",
        "value": f"{s} 부문의 {m}{_topic(m)} 얼마입니까?",
        "prior": f"{s} 부문의 전년 동기 {m}{_topic(m)} 얼마입니까?",
        "yoy": f"{s} 부문의 {m}{_topic(m)} 전년 동기 대비 몇 퍼센트 변했습니까?",
        "total": f"총 {m}{_topic(m)} 얼마입니까?",
        "total_yoy": f"총 {m}{_topic(m)} 전년 동기 대비 몇 퍼센트 변했습니까?",
        "total_inferred": f"전체 부문의 {m} 합계는 얼마입니까?",
        "share": f"{s} 부문이 전체 {m}에서 차지하는 비중은 얼마입니까?",
    }[kind]


def _alternation(forms: Sequence[str]) -> str:
    return "|".join(
        re.escape(f).replace(r"\ ", r"\s*") for f in sorted(forms, key=len, reverse=True)
    )


_EN_FORMS = [f for forms in METRIC_SYNONYMS.values() for f in forms if f.isascii()]


_KO_FORMS = [f for forms in METRIC_SYNONYMS.values() for f in forms if not f.isascii()]


_EM = r"(?P<m>" + _alternation(_EN_FORMS) + r")(?![A-Za-z])"


_KM = r"(?P<m>" + _alternation(_KO_FORMS) + r")"


_SEG = r"(?P<s>.+?)"


_KSEG = r"(?P<s>\S+)"


_Q = r"\s*\??$"


# English: the template is matched at the start; whatever follows is qualifiers.
_EN_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (k, re.compile(p, re.I))
    for k, p in [
        (
            "argmax",
            r"^which segment (?:had|recorded|reported|posted) the (?:highest|largest|most|biggest) "
            + _EM,
        ),
        (
            "argmin",
            r"^which segment (?:had|recorded|reported|posted) the (?:lowest|smallest|least|fewest) "
            + _EM,
        ),
        (
            "share",
            r"^what share of (?:the )?(?:total )?" + _EM + r" came from the " + _SEG + r" segment",
        ),
        ("total_inferred", r"^what was the total " + _EM + r" across all segments"),
        ("total_yoy", r"^by how much did (?:the )?(?:total )?" + _EM + r" change year over year"),
        ("total", r"^what was (?:the )?total " + _EM),
        (
            "yoy",
            r"^what was the year-over-year change in (?:the )?"
            + _SEG
            + r" (?:segment(?:'s)? )?"
            + _EM,
        ),
        ("prior", r"^what was the prior-year " + _EM + r" of the " + _SEG + r" segment"),
        ("value", r"^what was the " + _EM + r" of the " + _SEG + r" segment"),
    ]
]


# Korean: the template is matched at the end; whatever precedes it is qualifiers.
_KO_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (k, re.compile(p))
    for k, p in [
        (
            "argmax",
            r"(?:^|\s)" + _KM + r"\s*[이가]\s+가장\s+(?:높은|많은|큰)\s+부문은\s+어디입니까" + _Q,
        ),
        (
            "argmin",
            r"(?:^|\s)" + _KM + r"\s*[이가]\s+가장\s+(?:낮은|적은|작은)\s+부문은\s+어디입니까" + _Q,
        ),
        (
            "share",
            r"(?:^|\s)"
            + _KSEG
            + r"\s+부문이\s+전체\s+"
            + _KM
            + r"\s*에서\s+차지하는\s+비중은\s+얼마입니까"
            + _Q,
        ),
        ("total_inferred", r"(?:^|\s)전체\s+부문의\s+" + _KM + r"\s+합계는\s+얼마입니까" + _Q),
        (
            "total_yoy",
            r"(?:^|\s)총\s+"
            + _KM
            + r"\s*[은는]\s+전년\s+동기\s+대비\s+몇\s+퍼센트\s+변했습니까"
            + _Q,
        ),
        ("total", r"(?:^|\s)총\s+" + _KM + r"\s*[은는]\s+얼마입니까" + _Q),
        (
            "yoy",
            r"(?:^|\s)"
            + _KSEG
            + r"\s+부문의\s+"
            + _KM
            + r"\s*[은는]\s+전년\s+동기\s+대비\s+몇\s+퍼센트\s+변했습니까"
            + _Q,
        ),
        (
            "prior",
            r"(?:^|\s)"
            + _KSEG
            + r"\s+부문의\s+전년\s+동기\s+"
            + _KM
            + r"\s*[은는]\s+얼마입니까"
            + _Q,
        ),
        (
            "value",
            r"(?:^|\s)"
            + _KSEG
            + r"\s+부문의\s+"
            + _KM
            + r"\s*[은는]\s+(?:얼마입니까|몇\s*명입니까)"
            + _Q,
        ),
    ]
]


_METRIC_KEY = {
    f.casefold().replace(" ", ""): key for key, forms in METRIC_SYNONYMS.items() for f in forms
}


def _metric_key(surface: str) -> str | None:
    return _METRIC_KEY.get(re.sub(r"\s+", "", surface.casefold()))


@dataclass(frozen=True)
class ParsedQuestion:
    kind: str
    metric: str | None
    segment: str | None
    language: str
    base: str  # the question without qualifiers and without its final '?'
    periods: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    revision: str | None = None  # "restated" | "original"
    extras: tuple[tuple[str, str], ...] = ()  # qualifiers on axes the judge has no rule for

    def qualifier_values(self) -> dict[str, str]:
        values: dict[str, str] = {}
        if self.periods:
            values["period"] = self.periods[-1]
        if self.entities:
            values["entity"] = self.entities[-1]
        if self.revision:
            values["revision"] = self.revision
        values.update(dict(self.extras))
        return values


def _clean(question: str) -> str:
    q = unicodedata.normalize("NFKC", question or "")
    return re.sub(r"\s+", " ", q).strip()


def _language(question: str) -> str:
    return "ko" if has_hangul(question) else "en"


@dataclass
class _Quals:
    metric: str | None = None
    periods: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    revision: str | None = None
    extras: list[tuple[str, str]] = field(default_factory=list)


_EN_REVISION = [
    (re.compile(r",?\s+as restated$", re.I), "restated"),
    (re.compile(r",?\s+as originally reported$", re.I), "original"),
]


_EN_EXTRA = re.compile(r"\s*\((?P<axis>[a-z_]+):\s*(?P<v>[^)]*)\)$", re.I)


_EN_METRIC_Q = re.compile(r",?\s+in terms of " + _EM + r"$", re.I)


def _strip_en_suffix(text: str, quals: _Quals, *, entity_ok: Callable[[str], bool]) -> str:
    """Peel qualifiers off the end of an English question until none is left to peel."""
    while True:
        before = text
        for pattern, revision in _EN_REVISION:
            m = pattern.search(text)
            if m:
                quals.revision = quals.revision or revision
                text = text[: m.start()]
        m = _EN_EXTRA.search(text)
        if m:
            quals.extras.insert(0, (m["axis"].lower(), m["v"].strip()))
            text = text[: m.start()]
        m = _EN_METRIC_Q.search(text)
        if m:
            quals.metric = quals.metric or _metric_key(m["m"])
            text = text[: m.start()]
        for word in (" in ", " for ", " during ", " as of "):
            idx = text.lower().rfind(word)
            if idx < 0:
                continue
            tail = text[idx + len(word) :].strip(" ,")
            period = normalize_period(tail)
            if period:
                quals.periods.insert(0, period)
                text = text[:idx]
                break
            if word == " for " and tail and entity_ok(tail):
                quals.entities.insert(0, tail)
                text = text[:idx]
                break
        text = text.rstrip(" ,")
        if text == before:
            return text


_KO_REVISION = [
    (re.compile(r"^정정\s*(?:공시|보고)?\s*기준(?:으로)?,?\s*"), "restated"),
    (re.compile(r"^최초\s*(?:공시|보고)\s*기준(?:으로)?,?\s*"), "original"),
]


_KO_EXTRA = re.compile(r"^\((?P<axis>[a-z_]+):\s*(?P<v>[^)]*)\)\s*", re.I)


_KO_METRIC_Q = re.compile(r"^" + _KM + r"\s*기준(?:으로)?,?\s*")


_KO_ENTITY = re.compile(r"^(?P<e>.+?)의(?:\s+|$)")


def _strip_ko_prefix(text: str, quals: _Quals, *, entity_ok: Callable[[str], bool]) -> str:
    """Peel qualifiers off the start of a Korean question until none is left to peel."""
    while text:
        before = text
        for pattern, revision in _KO_REVISION:
            m = pattern.match(text)
            if m:
                quals.revision = quals.revision or revision
                text = text[m.end() :]
        m = _KO_EXTRA.match(text)
        if m:
            quals.extras.append((m["axis"].lower(), m["v"].strip()))
            text = text[m.end() :]
        found = find_periods(text)
        if found and found[0].start == 0:
            quals.periods.append(found[0].canonical)
            text = text[found[0].end :].lstrip(" ,의")
        m = _KO_METRIC_Q.match(text)
        if m:
            quals.metric = quals.metric or _metric_key(m["m"])
            text = text[m.end() :]
        m = _KO_ENTITY.match(text)
        if m and entity_ok(m["e"]):
            quals.entities.append(m["e"].strip())
            text = text[m.end() :]
        text = text.strip()
        if text == before:
            break
    return text


def parse_question(question: str) -> ParsedQuestion | None:
    """The template and qualifiers of a question, or None when it is not a known form."""
    q = _clean(question)
    language = _language(q)
    quals = _Quals()
    if language == "ko":
        for kind, pattern in _KO_PATTERNS:
            m = pattern.search(q)
            if not m:
                continue
            prefix = q[: m.start()].strip()
            rest = _strip_ko_prefix(prefix, quals, entity_ok=lambda e: True)
            if rest:
                return None  # something before the template that is not a qualifier
            base = q[m.start() :].strip().rstrip("?").strip()
            return _parsed(kind, m, base, language, quals)
        return None
    for kind, pattern in _EN_PATTERNS:
        m = pattern.match(q)
        if not m:
            continue
        suffix = q[m.end() :].rstrip(" ?")
        rest = _strip_en_suffix(suffix, quals, entity_ok=lambda e: True)
        if rest.strip():
            return None
        return _parsed(kind, m, q[: m.end()].strip(), language, quals)
    return None


def _parsed(kind: str, m: re.Match[str], base: str, language: str, quals: _Quals) -> ParsedQuestion:
    groups = m.groupdict()
    metric = _metric_key(groups["m"]) if groups.get("m") else None
    segment = groups.get("s")
    periods = list(dict.fromkeys([*parse_periods(base), *quals.periods]))
    return ParsedQuestion(
        kind="total" if kind == "total_inferred" else kind,
        metric=metric or quals.metric,
        segment=segment.strip() if segment else None,
        language=language,
        base=base,
        periods=tuple(periods),
        entities=tuple(quals.entities),
        revision=quals.revision,
        extras=tuple(quals.extras),
    )


_KO_REVISION_TEXT = {"restated": "정정 공시 기준", "original": "최초 공시 기준"}


_EN_REVISION_TEXT = {"restated": "as restated", "original": "as originally reported"}


def _has_metric(text: str) -> bool:
    return any(
        _metric_key(f) and re.search(re.escape(f), text, re.I) for f in _EN_FORMS + _KO_FORMS
    )


def qualify_question(question: str, qualifiers: Qualifiers) -> str:
    """Name the gold's values on the given axes; existing qualifiers are replaced, never doubled.

    en: '<base> [in terms of <metric>] [in <period>] [for <entity>] [as restated]?'
    ko: '[정정 공시 기준] [<period>] [<entity>의] [<metric> 기준] <base>?'
    The language is the question's own (Hangul present -> ko), so a qualifier never switches
    language mid-sentence; Qualifiers.language is the fallback for questions with no letters.
    """
    q = _clean(question)
    language = (
        _language(q) if re.search("[A-Za-z" + HANGUL_SYLLABLES + "]", q) else qualifiers.language
    )
    new = {k: v for k, v in qualifiers.values.items() if v not in (None, "")}
    new_entity = new.get("entity")
    parsed = parse_question(q)

    def entity_ok(candidate: str) -> bool:
        # Only strip an entity qualifier we can recognise as one: the template parsed, or it
        # names the entity being added (so re-qualifying replaces instead of doubling).
        return parsed is not None or (
            new_entity is not None
            and fuzz.ratio(norm_words(candidate), norm_words(new_entity)) >= ENTITY_MATCH
        )

    quals = _Quals()
    if parsed is not None:
        base = parsed.base
        existing = parsed.qualifier_values()
        if parsed.metric and not re.search(_EM if language == "en" else _KM, base, re.I):
            existing["metric"] = parsed.metric
    else:
        if language == "ko":
            base = _strip_ko_prefix(q, quals, entity_ok=entity_ok).rstrip("?").strip()
        else:
            base = _strip_en_suffix(q.rstrip(" ?"), quals, entity_ok=entity_ok)
        existing = {}
        if quals.metric:
            existing["metric"] = quals.metric
        if quals.periods:
            existing["period"] = quals.periods[-1]
        if quals.entities:
            existing["entity"] = quals.entities[-1]
        if quals.revision:
            existing["revision"] = quals.revision
        existing.update(dict(quals.extras))
    merged = {**existing, **new}
    if "metric" in merged and _has_metric(base):
        merged.pop("metric")  # the question already names its metric
    return _render(base, merged, language)


def _render(base: str, values: dict[str, str], language: str) -> str:
    base = base.rstrip(" ?")
    extras = [(k, v) for k, v in values.items() if k not in AXIS_ORDER]
    if language == "ko":
        parts: list[str] = []
        if values.get("revision") in _KO_REVISION_TEXT:
            parts.append(_KO_REVISION_TEXT[values["revision"]])
        parts += [f"({k}: {v})" for k, v in extras]
        if "period" in values:
            parts.append(_display_or_raw(values["period"], "ko"))
        if "entity" in values:
            parts.append(f"{values['entity']}의")
        if "metric" in values:
            parts.append(f"{_METRIC_WORD['ko'].get(values['metric'], values['metric'])} 기준")
        return " ".join([*parts, base]) + "?"
    text = base
    if "metric" in values:
        text += f" in terms of {_METRIC_WORD['en'].get(values['metric'], values['metric'])}"
    if "period" in values:
        text += f" in {_display_or_raw(values['period'], 'en')}"
    if "entity" in values:
        text += f" for {values['entity']}"
    if values.get("revision") in _EN_REVISION_TEXT:
        text += f" {_EN_REVISION_TEXT[values['revision']]}"
    text += "".join(f" ({k}: {v})" for k, v in extras)
    return text + "?"


def _display_or_raw(period: str, language: str) -> str:
    try:
        return display_period(period, language)
    except ValueError:
        return period
