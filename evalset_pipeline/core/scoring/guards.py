"""The bench refuses to measure: checks that stop a report (exit 2) or put a warning on top of it.

Each guard exists because a number came out and the number was wrong:
  * stale golden set      judged against an older corpus, new pages compete without answers  -> refuse
  * too many empty queries a retriever component is down and the run measures something else -> refuse
  * corpus changed         the run was retrieved from a different corpus than was judged      -> warn
  * corpus grew/shrank     more than 5% more or fewer pages since the golden set was built     -> warn
  * unknown unit ids       the run's ids are not pages of this corpus: every query scores 0    -> refuse
Refusals can be overridden (--allow-stale, --allow-empty, --allow-unknown-units); the override then becomes a warning,
so a forced number never leaves the bench without saying so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from evalset_pipeline.core.scoring.conventions import (
    CORPUS_DRIFT_SHARE,
    DEFAULT_MAX_AGE_DAYS,
    MAX_EMPTY_SHARE,
    MIN_KNOWN_UNIT_SHARE,
    REFUSED_EXIT_CODE,
)
from evalset_pipeline.core.scoring.runs import RunMeta


class MeasurementRefused(Exception):
    """The bench will not produce a number; the message says why and how to override."""

    exit_code = REFUSED_EXIT_CODE


def _as_utc(value: Any) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        dt = value
    else:
        try:
            dt = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)  # schema stores UTC


def check_golden_age(
    info: Mapping[str, Any],
    *,
    max_age_days: float = DEFAULT_MAX_AGE_DAYS,
    allow_stale: bool = False,
    now: datetime | None = None,
) -> list[str]:
    """Refuse a golden set older than `max_age_days`; returns warnings when allowed or unknown."""
    created = _as_utc(info.get("created_at"))
    version = info.get("version_id", "?")
    if created is None:
        return [f"golden set {version} has no creation date; its age cannot be checked"]
    now = now or datetime.now(UTC)
    age_days = (now - created).total_seconds() / 86400.0
    if age_days <= max_age_days:
        return []
    message = (
        f"golden set {version} is {age_days:.0f} days old (built {created:%Y-%m-%d}; limit {max_age_days:g} days). "
        "It was judged against the corpus of that day: pages added since compete without any judgment, "
        "so scores drift down with nothing getting worse."
    )
    if allow_stale:
        return [f"STALE: {message} Scored anyway (--allow-stale)."]
    raise MeasurementRefused(
        f"REFUSED: {message}\nRebuild the golden set (`evalset build`), or pass --allow-stale to measure anyway."
    )


def check_empty_queries(
    n_results: np.ndarray,
    *,
    run_name: str = "run",
    max_share: float = MAX_EMPTY_SHARE,
    allow_empty: bool = False,
) -> list[str]:
    """Refuse a run in which more than `max_share` of golden queries returned nothing."""
    n = len(n_results)
    empty = int((np.asarray(n_results) == 0).sum())
    if n == 0 or empty == 0:
        return []
    share = empty / n
    message = f"{empty} of {n} golden queries ({share:.1%}) have no results in {run_name} (limit {max_share:.0%})."
    if share <= max_share:
        return [f"{message} They count as zero."]
    # A component that is down usually degrades silently to an empty list; measuring that would
    # report a different system under this one's name.
    message += (
        " A retriever component (or the whole retriever) may be down, or the run may be for another "
        "golden version; the number would measure something else."
    )
    if allow_empty:
        return [f"EMPTY: {message} Scored anyway (--allow-empty); empty queries count as zero."]
    raise MeasurementRefused(
        f"REFUSED: {message}\nFix the retriever and re-run, or pass --allow-empty to score anyway (they count as zero)."
    )


@dataclass(frozen=True)
class KnownUnits:
    """The unit ids a run may name: the whole corpus of the golden set when this data directory
    holds its build (`complete`), else the golden set's own pages and the pages of its documents."""

    ids: frozenset[str]
    document_prefixes: frozenset[str]  # "<sha256[:12]>-p": any page of a judged document
    complete: bool

    def __contains__(self, unit_id: object) -> bool:
        text = str(unit_id)
        return text in self.ids or text[:14] in self.document_prefixes


def check_unknown_units(
    unit_ids: Sequence[str],
    known: KnownUnits,
    *,
    run_path: str,
    version_id: str,
    min_share: float = MIN_KNOWN_UNIT_SHARE,
    allow_unknown: bool = False,
) -> list[str]:
    """Refuse a run whose unit ids are not pages of the golden set's corpus: scoring it gives 0.000
    on every metric, which reads as a terrible retriever instead of a wrong file. With the whole
    corpus known, fewer than `min_share` known ids refuse; without it, none known refuses (a run
    over a corpus we cannot list may rightly name pages no judgment mentions)."""
    distinct = list(dict.fromkeys(unit_ids))
    if not distinct:
        return []
    unknown = [u for u in distinct if u not in known]
    share = 1 - len(unknown) / len(distinct)
    threshold = min_share if known.complete else 0.0
    if share > 0 and share >= threshold:
        if unknown and known.complete:
            return [
                f"{len(unknown)} of {len(distinct)} unit ids in {run_path} are not pages of the "
                f"corpus (e.g. {unknown[0]!r}); they count as unjudged"
            ]
        return []
    example = next(iter(sorted(known.ids)), "")
    what = (
        f"only {share:.0%} of the {len(distinct)} distinct unit ids"
        if share
        else f"none of the {len(distinct)} distinct unit ids"
    )
    message = (
        f"{what} in {run_path} are pages of golden set {version_id}'s corpus "
        f"(limit {threshold:.0%}; e.g. {unknown[0]!r} is unknown"
        + (f", a known one is {example!r}" if example else "")
        + "). The run was retrieved from another corpus or its ids were rewritten, so every query "
        "would score 0 on every metric."
    )
    if allow_unknown:
        return [f"UNKNOWN UNITS: {message} Scored anyway (--allow-unknown-units)."]
    raise MeasurementRefused(
        f"REFUSED: {message}\nRe-run the retriever on this corpus with its unit ids (`evalset golden "
        "export` writes them as corpus ids), or pass --allow-unknown-units to score anyway."
    )


def corpus_warnings(info: Mapping[str, Any], meta: RunMeta, *, run_name: str = "run") -> list[str]:
    """Warn when the run's corpus differs from the golden set's, or has grown/shrunk > 5%."""
    out: list[str] = []
    golden_fp = info.get("corpus_fingerprint") or None
    if meta.corpus_fingerprint is None:
        out.append(
            f"{run_name} carries no corpus fingerprint, so it cannot be checked against the golden set's "
            "corpus (pass --corpus-fingerprint, or record it in the run's metadata)"
        )
    elif golden_fp and meta.corpus_fingerprint != golden_fp:
        out.append(
            f"CORPUS CHANGED: {run_name} was retrieved from corpus {meta.corpus_fingerprint[:16]}, the golden "
            f"set was judged on {str(golden_fp)[:16]}; documents added or removed since can move scores "
            "with no change in the retriever"
        )
    golden_pages = info.get("corpus_pages")
    if meta.corpus_pages is not None and golden_pages:
        change = (meta.corpus_pages - int(golden_pages)) / int(golden_pages)
        if abs(change) > CORPUS_DRIFT_SHARE:
            verb = "grown" if change > 0 else "shrunk"
            out.append(
                f"CORPUS {verb.upper()}: the corpus has {verb} by {abs(change):.1%} since the golden set was built "
                f"({meta.corpus_pages:,} pages now, {int(golden_pages):,} then; limit {CORPUS_DRIFT_SHARE:.0%}); "
                "rebuild the golden set as part of reindexing"
            )
    return out


def run_pair_warnings(meta_a: RunMeta, meta_b: RunMeta, name_a: str, name_b: str) -> list[str]:
    """Two runs retrieved from different corpora are not a paired comparison of retrievers."""
    fa, fb = meta_a.corpus_fingerprint, meta_b.corpus_fingerprint
    if fa and fb and fa != fb:
        return [
            f"DIFFERENT CORPORA: {name_a} was retrieved from corpus {fa[:16]} and {name_b} from {fb[:16]}; "
            "a difference between them may come from the corpus, not the retriever"
        ]
    if (fa is None) != (fb is None):
        missing = name_a if fa is None else name_b
        return [
            f"{missing} carries no corpus fingerprint; the two runs cannot be checked for the same corpus"
        ]
    return []
