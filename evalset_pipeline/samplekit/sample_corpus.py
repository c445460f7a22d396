"""A deterministic synthetic corpus of quarterly results decks, drawn with PyMuPDF.

Why synthetic: the pipeline needs a corpus whose pages look alike across entities, periods and
metrics (the hard negatives the whole project is about) and whose facts are known exactly, so
the question writer, the judge and the hard-negative pools can be tested against an oracle.

Shape (defaults: 5 entities x 4 quarters x 10 pages + one 2-page restatement = 202 pages):

    <slug>/<slug>_<YYYY-Qn>.pdf            cover, then per metric: segment_bar, kpi_table, commentary
    acme_group/acme_group_<P>_restated.pdf  restated segment_bar + kpi_table for revenue
    metadata.csv                            the sidecar (document,page,template_id,entity,metric,
                                            period,revision,language)

Every value is drawn from a seeded numpy Generator keyed by (seed, entity, metric), so adding
entities never changes the numbers of existing ones, and the same arguments give byte-identical
PDFs (fixed PDF dates, no /ID, no timestamps). The plan (`plan_sample_corpus`) is the oracle:
it holds, for every page, the segment values the page prints.

Periods are spelled differently on purpose (header "FY24 Q3", subtitle "Quarter ended September
30, 2024", table "Q3 2024", prose "third quarter 2024", Korean "2024년 3분기"), so period
extraction has real work; every spelling used is listed in `PERIOD_SPELLINGS`.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pymupdf

from evalset_pipeline.core.atomic import write_bytes_atomic
from evalset_pipeline.core.labels import PAGE_FIELDS
from evalset_pipeline.core.pagetext.dates import MONTH_NAMES
from evalset_pipeline.core.pagetext.korean import object_particle as _object
from evalset_pipeline.core.pagetext.korean import topic_particle as _topic
from evalset_pipeline.core.pagetext.text import HANGUL_LETTERS

__all__ = [
    "EntitySpec",
    "SegmentFigure",
    "PageRecord",
    "DocumentPlan",
    "CorpusPlan",
    "SampleCorpusSummary",
    "METRICS",
    "TEMPLATES",
    "SIDECAR_COLUMNS",
    "PERIOD_SPELLINGS",
    "entity_specs",
    "corpus_periods",
    "plan_sample_corpus",
    "generate_sample_corpus",
    "format_value",
    "format_pct",
    "render_document",
]

SIDECAR_COLUMNS = ("document", "page", *PAGE_FIELDS)
METRICS = ("revenue", "operating income", "headcount")
TEMPLATES = ("cover", "segment_bar", "kpi_table", "commentary")
LAST_PERIOD = "2024-Q3"
PAGE_W, PAGE_H = 960.0, 540.0  # 16:9 slide
PDF_DATE = "D:20240101000000"
# The sample's own setting of the offline writer (VLMConfig.unanswerable_every): one question in
# ten deliberately asks what its page does not state, so the demo build shows validation dropping
# it. Real corpora leave it at 0.
UNANSWERABLE_EVERY = 10

# Metric display names and units per language. The unit is part of every value a page prints.
_METRIC_LABEL = {
    "en": {"revenue": "Revenue", "operating income": "Operating income", "headcount": "Headcount"},
    "ko": {"revenue": "매출", "operating income": "영업이익", "headcount": "임직원 수"},
}
_UNIT = {
    "en": {"revenue": "USD m", "operating income": "USD m", "headcount": "employees"},
    "ko": {"revenue": "억원", "operating income": "억원", "headcount": "명"},
}
# Typical segment size per metric: revenue >> operating income; headcount in people.
_SCALE = {
    "en": {"revenue": 900.0, "operating income": 140.0, "headcount": 6000.0},
    "ko": {"revenue": 28000.0, "operating income": 3500.0, "headcount": 9000.0},
}


# --- entities and periods ----------------------------------------------------------------------


@dataclass(frozen=True)
class EntitySpec:
    name: str
    slug: str
    language: str
    segments: tuple[str, ...]
    header_style: str  # key of PERIOD_SPELLINGS used in the running header


_BASE_ENTITIES = (
    EntitySpec("Acme Group", "acme_group", "en", ("Cloud", "Devices", "Services"), "fy_q"),
    EntitySpec(
        "Borealis Holdings",
        "borealis_holdings",
        "en",
        ("Mining", "Energy", "Retail", "Logistics"),
        "q_fy",
    ),
    EntitySpec(
        "Cobalt Industries", "cobalt_industries", "en", ("Chemicals", "Materials", "Energy"), "nq"
    ),
    EntitySpec(
        "Delta Logistics",
        "delta_logistics",
        "en",
        ("Freight", "Warehousing", "Services", "Software"),
        "q_apos",
    ),
    EntitySpec(
        "한빛전자", "hanbit_electronics", "ko", ("반도체", "가전", "모바일", "디스플레이"), "ko_q"
    ),
)
_EXTRA_PREFIX = ("Evergreen", "Fjord", "Granite", "Harbor", "Iris", "Juniper", "Kestrel", "Lumen")
_EXTRA_SUFFIX = ("Partners", "Systems", "Capital", "Works")
_SEGMENT_POOL = (
    "Cloud",
    "Devices",
    "Services",
    "Software",
    "Energy",
    "Retail",
    "Healthcare",
    "Payments",
    "Aerospace",
    "Consumer",
    "Industrial",
    "Media",
    "Insurance",
    "Agriculture",
)
_EXTRA_STYLES = ("fy4_q", "q_year", "fy_q", "nq")


def entity_specs(count: int, seed: int = 7) -> list[EntitySpec]:
    """The first `count` entities: four English, one Korean, then generated English names."""
    specs = list(_BASE_ENTITIES[:count])
    for i in range(len(_BASE_ENTITIES), count):
        k = i - len(_BASE_ENTITIES)
        prefix = _EXTRA_PREFIX[k % len(_EXTRA_PREFIX)]
        name = f"{prefix} {_EXTRA_SUFFIX[(k // len(_EXTRA_PREFIX)) % len(_EXTRA_SUFFIX)]}"
        cycle = k // (len(_EXTRA_PREFIX) * len(_EXTRA_SUFFIX))
        if cycle:
            name = f"{name} {cycle + 1}"
        rng = np.random.default_rng([seed, i, 99])
        n_seg = 3 + int(rng.integers(0, 2))
        segments = tuple(str(s) for s in rng.choice(_SEGMENT_POOL, size=n_seg, replace=False))
        slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        specs.append(EntitySpec(name, slug, "en", segments, _EXTRA_STYLES[k % len(_EXTRA_STYLES)]))
    return specs


def _quarter_index(canonical: str) -> int:
    return int(canonical[:4]) * 4 + int(canonical[-1]) - 1


def _quarter_of_index(index: int) -> str:
    return f"{index // 4}-Q{index % 4 + 1}"


def corpus_periods(count: int, last: str = LAST_PERIOD) -> list[str]:
    """`count` consecutive quarters ending at `last`, oldest first."""
    end = _quarter_index(last)
    return [_quarter_of_index(i) for i in range(end - count + 1, end + 1)]


def _prior_year(canonical: str) -> str:
    return _quarter_of_index(_quarter_index(canonical) - 4)


# --- period spellings ----------------------------------------------------------------------------

_ORDINAL = {1: "first", 2: "second", 3: "third", 4: "fourth"}
_QUARTER_END = {1: (3, 31), 2: (6, 30), 3: (9, 30), 4: (12, 31)}


def _yq(canonical: str) -> tuple[int, int]:
    return int(canonical[:4]), int(canonical[-1])


def _quarter_ended(c: str) -> str:
    y, q = _yq(c)
    m, d = _QUARTER_END[q]
    return f"Quarter ended {MONTH_NAMES[m - 1]} {d}, {y}"


def _three_months(c: str) -> str:
    y, q = _yq(c)
    m, d = _QUARTER_END[q]
    return f"Three months ended {d} {MONTH_NAMES[m - 1]} {y}"


def _iso_end(c: str) -> str:
    y, q = _yq(c)
    m, d = _QUARTER_END[q]
    return f"{y}-{m:02d}-{d:02d}"


def _ko_date(c: str) -> str:
    y, q = _yq(c)
    m, d = _QUARTER_END[q]
    return f"{y}년 {m}월 {d}일"


# Every spelling the generator prints, keyed by style; tests round-trip each through periods.py.
PERIOD_SPELLINGS: dict[str, Callable[[str], str]] = {
    "fy_q": lambda c: f"FY{_yq(c)[0] % 100:02d} Q{_yq(c)[1]}",
    "fy4_q": lambda c: f"FY{_yq(c)[0]} Q{_yq(c)[1]}",
    "q_fy": lambda c: f"Q{_yq(c)[1]} FY{_yq(c)[0] % 100:02d}",
    "nq": lambda c: f"{_yq(c)[1]}Q{_yq(c)[0] % 100:02d}",
    "q_apos": lambda c: f"Q{_yq(c)[1]}'{_yq(c)[0] % 100:02d}",
    "q_year": lambda c: f"Q{_yq(c)[1]} {_yq(c)[0]}",
    "ordinal": lambda c: f"{_ORDINAL[_yq(c)[1]]} quarter {_yq(c)[0]}",
    "quarter_ended": _quarter_ended,
    "three_months": _three_months,
    "iso_end": _iso_end,
    "ko_q": lambda c: f"{_yq(c)[0]}년 {_yq(c)[1]}분기",
    "ko_3q": lambda c: f"{_yq(c)[0]}년 {_yq(c)[1]}Q",
    "ko_date": _ko_date,
}

# Which spelling each place on a page uses. Subtitles differ by metric so that a single document
# carries several spellings of its own period.
_SUBTITLE_STYLE = {
    "en": {"revenue": "quarter_ended", "operating income": "three_months", "headcount": "iso_end"},
    "ko": {"revenue": "ko_3q", "operating income": "ko_q", "headcount": "ko_date"},
}


def _subtitle_period(canonical: str, metric: str, language: str) -> str:
    style = _SUBTITLE_STYLE[language][metric]
    text = PERIOD_SPELLINGS[style](canonical)
    if metric == "headcount":  # headcount is a point-in-time figure: "as of" the quarter-end date
        return f"{text} 기준" if language == "ko" else f"As of {text}"
    if (
        style == "ko_3q"
    ):  # "2024년 3Q" alone reads like a label; "2024년 3Q 실적" is how decks say it
        return f"{text} 실적"
    return text


# --- the data model (the oracle) -------------------------------------------------------------------


@dataclass(frozen=True)
class SegmentFigure:
    """One segment's value on a page: current quarter, same quarter a year earlier, YoY in %."""

    segment: str
    current: float
    prior: float

    @property
    def yoy(self) -> float:
        return round((self.current / self.prior - 1.0) * 100.0, 1)


@dataclass(frozen=True)
class PageRecord:
    document: str  # relative to the corpus root, forward slashes
    page: int  # 1-based
    template_id: str
    entity: str
    metric: str  # "" for covers
    period: str
    revision: str  # original | restated
    language: str
    unit: str = ""
    figures: tuple[SegmentFigure, ...] = ()

    def sidecar_row(self) -> dict[str, str]:
        return {
            "document": self.document,
            "page": str(self.page),
            "template_id": self.template_id,
            "entity": self.entity,
            "metric": self.metric,
            "period": self.period,
            "revision": self.revision,
            "language": self.language,
        }

    @property
    def total(self) -> float:
        return round(sum(f.current for f in self.figures), _decimals(self.metric, self.language))

    @property
    def prior_total(self) -> float:
        return round(sum(f.prior for f in self.figures), _decimals(self.metric, self.language))

    @property
    def total_yoy(self) -> float:
        return round((self.total / self.prior_total - 1.0) * 100.0, 1)

    def argmax(self) -> str:
        return max(self.figures, key=lambda f: f.current).segment

    def argmin(self) -> str:
        return min(self.figures, key=lambda f: f.current).segment


@dataclass(frozen=True)
class DocumentPlan:
    path: str
    entity: EntitySpec
    period: str
    revision: str
    pages: tuple[PageRecord, ...]

    @property
    def language(self) -> str:
        return self.entity.language


@dataclass(frozen=True)
class CorpusPlan:
    entities: tuple[EntitySpec, ...]
    periods: tuple[str, ...]
    seed: int
    documents: tuple[DocumentPlan, ...]

    def pages(self) -> list[PageRecord]:
        return [p for d in self.documents for p in d.pages]

    def page(self, document: str, page: int) -> PageRecord:
        for d in self.documents:
            if d.path == document:
                return d.pages[page - 1]
        raise KeyError((document, page))


@dataclass(frozen=True)
class SampleCorpusSummary:
    documents: int
    pages: int
    metadata_csv: Path
    root: Path
    total_bytes: int
    files: tuple[Path, ...] = field(default=(), repr=False)


def _decimals(metric: str, language: str) -> int:
    """USD m figures carry one decimal; people and 억원 are whole numbers."""
    return 1 if language == "en" and metric != "headcount" else 0


def format_value(value: float, metric: str, language: str, *, unit: bool = True) -> str:
    """How a page prints a value: '1,234.5 USD m', '12,345 employees', '12,345억원', '3,210명'."""
    number = f"{value:,.{_decimals(metric, language)}f}"
    if not unit:
        return number
    u = _UNIT[language][metric]
    return f"{number}{u}" if language == "ko" else f"{number} {u}"


def format_pct(value: float) -> str:
    return f"{value:+.1f}%"


def _series(
    entity_index: int,
    metric_index: int,
    spec: EntitySpec,
    metric: str,
    quarters: Sequence[str],
    corpus: Sequence[str],
    seed: int,
) -> dict[str, dict[str, float]]:
    """Quarter -> segment -> value for one (entity, metric).

    Half of the (entity, metric) series are close races (top two segments within a few percent,
    so the leader changes between quarters) and half have a clear leader (the argmax never
    changes). That variety is what makes an unqualified "which segment had the highest …"
    question sometimes answerable by a sibling page with the same answer and sometimes not.
    """
    rng = np.random.default_rng([seed, entity_index, metric_index])
    n = len(spec.segments)
    bases = _SCALE[spec.language][metric] * rng.uniform(0.35, 1.0, n)
    order = np.argsort(-bases)
    close = (entity_index + metric_index) % 2 == 0
    if close:
        bases[order[1]] = bases[order[0]] * rng.uniform(0.975, 0.995)
    else:
        bases[order[0]] = max(bases[order[0]], bases[order[1]] * 1.4)
    growth = rng.normal(0.012, 0.008, n)
    noise = 0.035 if close else 0.015
    decimals = _decimals(metric, spec.language)
    out: dict[str, dict[str, float]] = {}
    for qi, quarter in enumerate(quarters):
        shocks = rng.normal(0.0, noise, n)
        values = bases * (1.0 + growth) ** qi * (1.0 + shocks)
        out[quarter] = {
            s: round(float(v), decimals) for s, v in zip(spec.segments, values, strict=False)
        }
    if close and len(corpus) >= 2:
        _force_leader_change(out, corpus, spec.segments)
    for quarter in quarters:
        _break_ties(out[quarter], decimals)
    return out


def _force_leader_change(
    series: dict[str, dict[str, float]], corpus: Sequence[str], segments: Sequence[str]
) -> None:
    """In a close race, make sure the leader changes at least once inside the corpus periods."""
    leaders = {max(series[q], key=series[q].__getitem__) for q in corpus}
    if len(leaders) > 1:
        return
    last = series[corpus[-1]]
    first, second = sorted(segments, key=last.__getitem__, reverse=True)[:2]
    last[first], last[second] = last[second], last[first]


def _break_ties(values: dict[str, float], decimals: int) -> None:
    """Rounded values must be distinct, or argmax/argmin questions have two answers."""
    step = 10.0**-decimals
    seen: set[float] = set()
    for segment in sorted(values, key=values.__getitem__):
        while values[segment] in seen:
            values[segment] = round(values[segment] + step, decimals)
        seen.add(values[segment])


def _restate(
    figures: tuple[SegmentFigure, ...], metric: str, language: str
) -> tuple[SegmentFigure, ...]:
    """A restatement that moves business from the leader to the runner-up (totals unchanged).

    The transfer is large enough to change the leader, so a restated page and its original
    disagree on the argmax: the one thing only the revision axis can tell apart.
    """
    decimals = _decimals(metric, language)
    ranked = sorted(figures, key=lambda f: f.current, reverse=True)
    top, second = ranked[0], ranked[1]
    shift = round((top.current - second.current) / 2 + 0.04 * top.current, decimals)
    revised = {
        top.segment: round(top.current - shift, decimals),
        second.segment: round(second.current + shift, decimals),
    }
    out = tuple(
        SegmentFigure(f.segment, revised.get(f.segment, f.current), f.prior) for f in figures
    )
    values = {f.segment: f.current for f in out}
    _break_ties(values, decimals)
    return tuple(SegmentFigure(f.segment, values[f.segment], f.prior) for f in out)


def plan_sample_corpus(*, entities: int = 5, periods: int = 4, seed: int = 7) -> CorpusPlan:
    """Every document and page of the corpus with the figures each page prints (no drawing)."""
    if entities < 1 or periods < 1:
        raise ValueError("entities and periods must be >= 1")
    specs = entity_specs(entities, seed)
    corpus = corpus_periods(periods)
    quarters = corpus_periods(periods + 4)  # four extra quarters for the prior-year column
    documents: list[DocumentPlan] = []
    restated_doc: DocumentPlan | None = None
    for ei, spec in enumerate(specs):
        series = {
            m: _series(ei, mi, spec, m, quarters, corpus, seed) for mi, m in enumerate(METRICS)
        }
        for period in corpus:
            path = f"{spec.slug}/{spec.slug}_{period}.pdf"
            pages = [PageRecord(path, 1, "cover", spec.name, "", period, "original", spec.language)]
            for metric in METRICS:
                figures = _figures(series[metric], spec.segments, period)
                for template in ("segment_bar", "kpi_table", "commentary"):
                    pages.append(
                        PageRecord(
                            path,
                            len(pages) + 1,
                            template,
                            spec.name,
                            metric,
                            period,
                            "original",
                            spec.language,
                            _UNIT[spec.language][metric],
                            figures,
                        )
                    )
            documents.append(DocumentPlan(path, spec, period, "original", tuple(pages)))
        if ei == 0:  # the restatement belongs to the first entity (Acme Group)
            period = corpus[-2] if len(corpus) >= 2 else corpus[-1]
            path = f"{spec.slug}/{spec.slug}_{period}_restated.pdf"
            figures = _restate(
                _figures(series["revenue"], spec.segments, period), "revenue", spec.language
            )
            restated_pages = tuple(
                PageRecord(
                    path,
                    i + 1,
                    t,
                    spec.name,
                    "revenue",
                    period,
                    "restated",
                    spec.language,
                    _UNIT[spec.language]["revenue"],
                    figures,
                )
                for i, t in enumerate(("segment_bar", "kpi_table"))
            )
            restated_doc = DocumentPlan(path, spec, period, "restated", restated_pages)
    if restated_doc is not None:
        documents.append(restated_doc)
    documents.sort(key=lambda d: d.path)
    return CorpusPlan(tuple(specs), tuple(corpus), seed, tuple(documents))


def _figures(
    series: dict[str, dict[str, float]], segments: Sequence[str], period: str
) -> tuple[SegmentFigure, ...]:
    prior = _prior_year(period)
    return tuple(SegmentFigure(s, series[period][s], series[prior][s]) for s in segments)


# --- drawing ------------------------------------------------------------------------------------------

_HANGUL_RUN = re.compile("[" + HANGUL_LETTERS + "]+|[^" + HANGUL_LETTERS + "]+")
_HANGUL_LETTER = re.compile("[" + HANGUL_LETTERS + "]")
_BLACK = (0.1, 0.1, 0.12)
_GREY = (0.42, 0.42, 0.45)
_RULE = (0.7, 0.7, 0.72)
_ACCENT = (0.12, 0.3, 0.55)
_PALETTE = (
    (0.16, 0.38, 0.68),
    (0.93, 0.55, 0.18),
    (0.3, 0.62, 0.38),
    (0.6, 0.35, 0.65),
    (0.8, 0.3, 0.3),
)


class _Canvas:
    """One page being drawn: vector graphics go straight to the page, text is batched in one
    Shape (committed once per page; a Shape per text run made generation several times slower)."""

    def __init__(self, page: pymupdf.Page) -> None:
        self.page = page
        self.shape = page.new_shape()

    def commit(self) -> None:
        self.shape.commit()


@functools.lru_cache(maxsize=8192)
def _run_width(run: str, font: str, size: float) -> float:
    return pymupdf.get_text_length(run, fontname=font, fontsize=size)


def _is_hangul(run: str) -> bool:
    return bool(_HANGUL_LETTER.match(run))


def _text_width(text: str, size: float, bold: bool = False) -> float:
    """Width as drawn by `_draw`: the built-in CJK font advances one em per glyph."""
    width = 0.0
    for run in _HANGUL_RUN.findall(text):
        if _is_hangul(run):
            width += len(run) * size
        else:
            width += _run_width(run, "hebo" if bold else "helv", size)
    return width


def _draw(
    cv: _Canvas,
    x: float,
    y: float,
    text: str,
    size: float,
    *,
    bold: bool = False,
    color: tuple[float, float, float] = _BLACK,
    align: str = "left",
) -> None:
    """Draw one line; Hangul runs in the built-in 'korea' font, everything else in Helvetica.

    The CJK font prints Latin digits as full-width glyphs, which looks wrong on a results slide,
    so numbers and Latin text stay in Helvetica even on Korean pages.
    """
    if align != "left":
        w = _text_width(text, size, bold)
        x -= w if align == "right" else w / 2
    for run in _HANGUL_RUN.findall(text):
        if _is_hangul(run):
            cv.shape.insert_text((x, y), run, fontname="korea", fontsize=size, color=color)
            x += len(run) * size
        else:
            font = "hebo" if bold else "helv"
            cv.shape.insert_text((x, y), run, fontname=font, fontsize=size, color=color)
            x += _run_width(run, font, size)


def _wrap(text: str, size: float, width: float) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        trial = f"{current} {word}" if current else word
        if current and _text_width(trial, size) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    if current:
        lines.append(current)
    return lines


def _rule(
    cv: _Canvas,
    x0: float,
    y: float,
    x1: float,
    color: tuple[float, float, float] = _RULE,
    width: float = 0.8,
) -> None:
    cv.page.draw_line((x0, y), (x1, y), color=color, width=width)


_FOOTER_NOTE = {
    "en": "Synthetic sample corpus - for evaluation only",
    "ko": "합성 예시 자료 - 평가용",
}


def _chrome(cv: _Canvas, rec: PageRecord, spec: EntitySpec, page_count: int) -> None:
    """Running header (entity, period) and footer (page number) shared by every page."""
    _draw(cv, 40, 28, spec.name, 10, color=_GREY)
    _draw(
        cv,
        PAGE_W - 40,
        28,
        PERIOD_SPELLINGS[spec.header_style](rec.period),
        10,
        color=_GREY,
        align="right",
    )
    _rule(cv, 40, 36, PAGE_W - 40)
    _rule(cv, 40, 508, PAGE_W - 40)
    _draw(cv, 40, 526, _FOOTER_NOTE[rec.language], 8, color=_GREY)
    number = (
        f"{rec.page} / {page_count}" if rec.language == "ko" else f"Page {rec.page} of {page_count}"
    )
    _draw(cv, PAGE_W - 40, 526, number, 8, color=_GREY, align="right")


_TITLES = {
    "en": {
        "segment_bar": "{m} by segment",
        "kpi_table": "{m} by segment: current vs prior year",
        "commentary": "{m} commentary",
    },
    "ko": {
        "segment_bar": "부문별 {m}",
        "kpi_table": "부문별 {m} 전년 동기 비교",
        "commentary": "{m} 실적 해설",
    },
}


def _title(cv: _Canvas, rec: PageRecord, spec: EntitySpec) -> None:
    label = _METRIC_LABEL[rec.language][rec.metric]
    title = _TITLES[rec.language][rec.template_id].format(m=label)
    if rec.revision == "restated":
        title += " (restated)"
    _draw(cv, 40, 78, title, 22, bold=True, color=_ACCENT)
    subtitle = f"{spec.name} · {_subtitle_period(rec.period, rec.metric, rec.language)}"
    _draw(cv, 40, 100, subtitle, 13, color=_GREY)


def _footnote(cv: _Canvas, rec: PageRecord, text: str, x: float = 40.0) -> None:
    if rec.revision == "restated":
        text = (
            "Restated: figures revised for the transfer of a product line between segments; "
            "group total unchanged. " + text
        )
    _draw(cv, x, 490, text, 9, color=_GREY)


def _draw_cover(cv: _Canvas, rec: PageRecord, spec: EntitySpec) -> None:
    cv.page.draw_rect(pymupdf.Rect(40, 150, 52, 330), color=None, fill=_ACCENT)
    _draw(cv, 72, 215, spec.name, 36, bold=True, color=_ACCENT)
    if rec.language == "ko":
        _draw(cv, 72, 255, f"{PERIOD_SPELLINGS['ko_q'](rec.period)} 실적 발표", 18)
        _draw(cv, 72, 285, "투자자 설명회 자료", 14, color=_GREY)
    else:
        _draw(
            cv,
            72,
            255,
            f"{PERIOD_SPELLINGS['ordinal'](rec.period).capitalize()} results presentation",
            18,
        )
        _draw(cv, 72, 285, _quarter_ended(rec.period), 14, color=_GREY)


def _draw_segment_bar(cv: _Canvas, rec: PageRecord, spec: EntitySpec) -> None:
    """Vector bar chart: one bar per segment, value label above, category label below."""
    _title(cv, rec, spec)
    x0, x1, base, max_h = 80.0, 880.0, 440.0, 230.0
    n = len(rec.figures)
    slot = (x1 - x0) / n
    bar_w = min(110.0, slot * 0.5)
    top = max(f.current for f in rec.figures)
    for i, fig in enumerate(rec.figures):
        cx = x0 + slot * (i + 0.5)
        h = max_h * fig.current / top
        cv.page.draw_rect(
            pymupdf.Rect(cx - bar_w / 2, base - h, cx + bar_w / 2, base),
            color=None,
            fill=_PALETTE[i % len(_PALETTE)],
        )
        _draw(
            cv,
            cx,
            base - h - 8,
            format_value(fig.current, rec.metric, rec.language, unit=False),
            12,
            bold=True,
            align="center",
        )
        _draw(cv, cx, 462, fig.segment, 12, align="center")
    _rule(cv, x0 - 10, base, x1 + 10, color=_BLACK, width=1.0)
    cv.page.draw_rect(pymupdf.Rect(40, 482, 48, 490), color=None, fill=_PALETTE[0])
    label = _METRIC_LABEL[rec.language][rec.metric]
    unit = _UNIT[rec.language][rec.metric]
    note = (
        f"{label}, 단위: {unit}. 출처: 회사 자료(합성)"
        if rec.language == "ko"
        else f"{label}, {unit}. Source: company reports (synthetic)."
    )
    _footnote(cv, rec, note, x=54.0)  # right of the legend swatch


_TABLE_COLS = (80.0, 520.0, 700.0, 880.0)  # left edge of segment column; right edges of numbers


def _draw_kpi_table(cv: _Canvas, rec: PageRecord, spec: EntitySpec) -> None:
    """Rows = segments; columns = segment | current quarter | prior-year quarter | YoY change."""
    _title(cv, rec, spec)
    if rec.language == "ko":
        headers = (
            "부문",
            PERIOD_SPELLINGS["ko_q"](rec.period),
            PERIOD_SPELLINGS["ko_q"](_prior_year(rec.period)),
            "증감률",
        )
    else:
        style = "q_year" if spec.header_style != "q_year" else "fy4_q"
        headers = (
            "Segment",
            PERIOD_SPELLINGS[style](rec.period),
            PERIOD_SPELLINGS[style](_prior_year(rec.period)),
            "YoY change",
        )
    y = 165.0
    _rule(cv, 70, y - 22, 890, color=_BLACK, width=1.0)
    _draw(cv, _TABLE_COLS[0], y, headers[0], 12, bold=True)
    for col, text in zip(_TABLE_COLS[1:], headers[1:], strict=False):
        _draw(cv, col, y, text, 12, bold=True, align="right")
    _rule(cv, 70, y + 10, 890, color=_BLACK, width=0.8)
    for fig in rec.figures:
        y += 36.0
        _draw(cv, _TABLE_COLS[0], y, fig.segment, 12)
        cells = (
            format_value(fig.current, rec.metric, rec.language, unit=False),
            format_value(fig.prior, rec.metric, rec.language, unit=False),
            format_pct(fig.yoy),
        )
        for col, text in zip(_TABLE_COLS[1:], cells, strict=False):
            _draw(cv, col, y, text, 12, align="right")
        _rule(cv, 70, y + 12, 890)
    _rule(cv, 70, y + 12, 890, color=_BLACK, width=1.0)
    unit = _UNIT[rec.language][rec.metric]
    note = (
        f"단위: {unit}. 증감률은 전년 동기 대비."
        if rec.language == "ko"
        else f"Figures in {unit}; YoY change versus the same quarter of the prior year."
    )
    _footnote(cv, rec, note)


def _commentary_text(rec: PageRecord) -> list[str]:
    """Paragraphs of prose stating the same figures as the chart and the table."""
    label = _METRIC_LABEL[rec.language][rec.metric]
    total = format_value(rec.total, rec.metric, rec.language)
    ranked = sorted(rec.figures, key=lambda f: f.current, reverse=True)
    if rec.language == "ko":
        direction = "증가" if rec.total_yoy >= 0 else "감소"
        parts = ", ".join(
            f"{f.segment} {format_value(f.current, rec.metric, rec.language)}({format_pct(f.yoy)})"
            for f in rec.figures
        )
        return [
            f"{PERIOD_SPELLINGS['ko_q'](rec.period)} {label}{_topic(label)} 전년 동기 대비 {abs(rec.total_yoy):.1f}% "
            f"{direction}한 {total}{_object(total)} 기록했습니다.",
            f"부문별로는 {parts}입니다.",
            f"가장 큰 부문은 {ranked[0].segment}이며, 가장 작은 부문은 {ranked[-1].segment}입니다. "
            "경영진은 연간 전망을 유지했습니다.",
        ]
    direction = "rose" if rec.total_yoy >= 0 else "fell"
    clauses = [
        f"{f.segment} {format_value(f.current, rec.metric, rec.language)} ({format_pct(f.yoy)} YoY)"
        for f in rec.figures
    ]
    clauses[0] = clauses[0].replace(" ", " contributed ", 1)
    joined = ", ".join(clauses[:-1]) + " and " + clauses[-1]
    return [
        f"{label} {direction} {abs(rec.total_yoy):.1f}% year over year to {total} in the "
        f"{PERIOD_SPELLINGS['ordinal'](rec.period)}, led by {ranked[0].segment}.",
        f"By segment, {joined}.",
        f"{ranked[-1].segment} remained the smallest contributor. Management reiterated its outlook for the full year.",
    ]


def _draw_commentary(cv: _Canvas, rec: PageRecord, spec: EntitySpec) -> None:
    _title(cv, rec, spec)
    y = 150.0
    for paragraph in _commentary_text(rec):
        for line in _wrap(paragraph, 14, PAGE_W - 160):
            _draw(cv, 80, y, line, 14)
            y += 22.0
        y += 12.0
    unit = _UNIT[rec.language][rec.metric]
    _footnote(cv, rec, f"단위: {unit}." if rec.language == "ko" else f"Figures in {unit}.")


_DRAWERS: dict[str, Callable[[_Canvas, PageRecord, EntitySpec], None]] = {
    "cover": _draw_cover,
    "segment_bar": _draw_segment_bar,
    "kpi_table": _draw_kpi_table,
    "commentary": _draw_commentary,
}


def render_document(doc_plan: DocumentPlan) -> bytes:
    """Draw one planned document and return its PDF bytes (deterministic)."""
    spec = doc_plan.entity
    doc = pymupdf.open()
    try:
        for rec in doc_plan.pages:
            cv = _Canvas(doc.new_page(width=PAGE_W, height=PAGE_H))
            _chrome(cv, rec, spec, len(doc_plan.pages))
            _DRAWERS[rec.template_id](cv, rec, spec)
            cv.commit()
        if spec.language == "ko":
            title = f"{spec.name} {PERIOD_SPELLINGS['ko_q'](doc_plan.period)} 실적"
        else:
            title = f"{spec.name} {PERIOD_SPELLINGS['q_year'](doc_plan.period)} results"
        if doc_plan.revision == "restated":
            title += " (restated)"
        doc.set_metadata(
            {
                "title": title,
                "author": spec.name,
                "subject": "Synthetic quarterly results (evalset_pipeline sample corpus)",
                "keywords": "",
                "creator": "evalset_pipeline.samplekit.sample_corpus",
                "producer": "PyMuPDF",
                "creationDate": PDF_DATE,
                "modDate": PDF_DATE,
                "trapped": "",
            }
        )
        # garbage=4 + deflate keep the files small; no_new_id keeps the trailer free of a random /ID.
        return doc.tobytes(garbage=4, deflate=True, no_new_id=True)
    finally:
        doc.close()


def sidecar_csv(plan: CorpusPlan) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(SIDECAR_COLUMNS), lineterminator="\n")
    writer.writeheader()
    for rec in plan.pages():
        writer.writerow(rec.sidecar_row())
    return buf.getvalue()


def generate_sample_corpus(
    out_dir: Path, *, entities: int = 5, periods: int = 4, seed: int = 7
) -> SampleCorpusSummary:
    """Write the corpus (PDFs + metadata.csv) under `out_dir`; same arguments -> identical bytes.

    Files with the same names are overwritten; other files under `out_dir` are left alone.
    """
    out_dir = Path(out_dir)
    plan = plan_sample_corpus(entities=entities, periods=periods, seed=seed)
    files: list[Path] = []
    total = 0
    for doc_plan in plan.documents:
        data = render_document(doc_plan)
        path = out_dir / doc_plan.path
        write_bytes_atomic(path, data)
        files.append(path)
        total += len(data)
    csv_bytes = sidecar_csv(plan).encode("utf-8")
    metadata = out_dir / "metadata.csv"
    write_bytes_atomic(metadata, csv_bytes)
    total += len(csv_bytes)
    return SampleCorpusSummary(
        documents=len(plan.documents),
        pages=sum(len(d.pages) for d in plan.documents),
        metadata_csv=metadata,
        root=out_dir,
        total_bytes=total,
        files=tuple(files),
    )
