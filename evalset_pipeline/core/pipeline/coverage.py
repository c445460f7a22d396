"""Which pages of the corpus a build could ask about, and why the others were never sampled.

A scanned PDF (no text layer) or a 3,000-page filing used to go through a build without a word:
its pages were rendered and then never asked about. This reads what the stages left (renders,
page profiles, templates, mined negatives, the gold sample) and gives every unsampled page one
reason, in the order the sampling applies them, so the build summary and `evalset documents`
can say how many pages had no chance and why.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from evalset_pipeline.core.hashing import sha256_text
from evalset_pipeline.core.paths import DataPaths

# A page's text layer is empty when its extracted text is (whitespace only counts as empty).
_EMPTY_TEXT = frozenset(sha256_text(t) for t in ("", " ", "\n", "\n\n", " \n"))

NO_TEXT = (
    "no text layer (a scanned or image-only page): the offline writer and judge read only text"
)
NO_DISTRACTOR = (
    "no one-axis distractor was mined for it (no page of its template differs on one axis)"
)
NOT_DRAWN = (
    "eligible, not drawn: the seeded sample is stratified by template and capped by sample_size"
)


@dataclass
class Coverage:
    pages: int = 0
    no_text: int = 0
    sampled: int = 0
    reasons: Counter[str] = field(default_factory=Counter)  # unsampled pages by reason
    by_document: dict[str, dict[str, int]] = field(default_factory=dict)  # path -> counts

    @property
    def not_sampled(self) -> int:
        return self.pages - self.sampled

    def documents_never_sampled(self, limit: int = 5) -> list[dict[str, Any]]:
        """Documents none of whose pages was sampled, largest first."""
        rows: list[dict[str, Any]] = [
            {"path": path, **counts}
            for path, counts in self.by_document.items()
            if counts["sampled"] == 0
        ]
        return sorted(rows, key=lambda r: (-r["pages"], r["path"]))[:limit]

    def to_dict(self) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "pages_without_text_layer": self.no_text,
            "pages_sampled": self.sampled,
            "pages_never_sampled": self.not_sampled,
            "never_sampled_reasons": dict(self.reasons.most_common()),
            "documents_never_sampled": self.documents_never_sampled(),
            "documents_never_sampled_count": sum(
                1 for c in self.by_document.values() if c["sampled"] == 0
            ),
        }


def page_coverage(paths: DataPaths) -> Coverage:
    """Every rendered page: text layer or not, sampled or not, and the first reason it was not."""
    from evalset_pipeline.core.pipeline.context import BuildConfig, StageContext
    from evalset_pipeline.core.pipeline.gold_sample import load_gold_sample
    from evalset_pipeline.core.pipeline.hard_negatives import load_hard_negatives
    from evalset_pipeline.core.pipeline.page_metadata import load_page_profiles
    from evalset_pipeline.core.pipeline.page_renders import load_page_renders
    from evalset_pipeline.core.pipeline.template_groups import load_template_groups

    ctx = StageContext(paths, BuildConfig())

    def optional(name: str, load: Any, empty: Any) -> Any:
        return load(ctx) if paths.table(name).exists() else empty

    renders = load_page_renders(ctx)
    sampled = set(optional("gold_sample", load_gold_sample, []))
    negatives = optional("hard_negatives", load_hard_negatives, {})
    templates = optional("template_groups", load_template_groups, {})
    profiles = optional("page_profiles", load_page_profiles, {})
    out = Coverage(pages=len(renders))
    for page in renders:
        counts = out.by_document.setdefault(
            page.document_path, {"pages": 0, "without_text_layer": 0, "sampled": 0}
        )
        counts["pages"] += 1
        empty = page.text_hash in _EMPTY_TEXT
        if empty:
            out.no_text += 1
            counts["without_text_layer"] += 1
        if page.unit_id in sampled:
            out.sampled += 1
            counts["sampled"] += 1
            continue
        profile = profiles.get(page.unit_id)
        if empty:
            why = NO_TEXT
        elif not negatives.get(page.unit_id) or not templates.get(page.unit_id, ("", ""))[0]:
            why = NO_DISTRACTOR
        elif profile is not None and profile.skip_reason:
            why = f"nothing to ask on it: {profile.skip_reason}"
        else:
            why = NOT_DRAWN
        out.reasons[why] += 1
    return out
