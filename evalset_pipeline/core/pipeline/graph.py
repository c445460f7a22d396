"""The stage graph in one place: what each stage reads, who writes it, and each stage's code.

Dagster's staleness is only as true as the dependencies it is told. So the asset graph is not
written by hand in `defs/`: every asset's upstream set is derived here from `READS` (the tables
and files a stage reads) and `PRODUCER` (the stage that writes each of them), and every stage
reads through `StagePaths`, which refuses a table the stage does not declare. A stage that
starts reading something new therefore fails its first test run until `READS` says so, and the
UI can never again show an asset as fresh while one of its inputs changed.

`code_version(stage)` hashes the source of the stage module's import closure inside the package
(plus the prompt files of any package in it), so no hand-kept list can miss a module.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.sources import PACKAGE, import_closure
from evalset_pipeline.core.sources import PACKAGE_DIR as _SOURCE_DIR

PACKAGE_DIR = _SOURCE_DIR  # evalset_pipeline/ (a module global, so a test can point it at a copy)

# External inputs: the corpus folder's PDFs and its metadata sidecar, reported (not built) with
# their content hashes as data versions, so editing metadata.csv makes exactly page_metadata and
# what reads it stale, and adding a PDF makes `documents` stale.
EXTERNAL = ("corpus_files", "corpus_sidecar")

# Everything a stage may read, by name: a working table (`tables/<name>.parquet`), a file beside
# the tables whose name starts with `<name>.` (`corpus_manifest.json`, `candidate_labels.calls.json`),
# an external input, or `golden_set` (the published version).
PRODUCER: dict[str, str | None] = {
    "corpus_files": "corpus_files",
    "corpus_sidecar": "corpus_sidecar",
    "documents": "documents",
    "rejected_documents": "documents",  # page_renders appends its unrenderable pages
    "corpus_manifest": "documents",
    "page_renders": "page_renders",
    "page_metadata": "page_metadata",
    "document_facts": "page_metadata",
    "page_profiles": "page_metadata",
    "evidence_pages": "evidence_index",
    "evidence_cells": "evidence_index",
    "page_embeddings": "page_embeddings",
    "template_groups": "template_groups",
    "hard_negatives": "hard_negatives",
    "comparative_pages": "hard_negatives",
    "gold_sample": "gold_sample",
    "candidate_questions": "candidate_questions",
    "item_pools": "item_pools",
    "validated_questions": "validated_questions",
    "funnel": "validated_questions",
    "candidate_labels": "candidate_labels",
    "golden_set": "golden_set",
    # the regression slice: people's records under data/regressions, resolved to pages by validated_questions
    "regression_items": "validated_questions",
}

READS: dict[str, tuple[str, ...]] = {
    "documents": ("corpus_files",),
    "page_renders": (
        "documents",
        "rejected_documents",
        "page_renders",
    ),  # its own previous table: reuse
    "page_metadata": ("corpus_sidecar", "documents", "page_renders"),
    # its own previous tables: pages whose text and document did not change are not read again
    "evidence_index": ("page_renders", "document_facts", "evidence_pages", "evidence_cells"),
    "page_embeddings": ("page_renders",),
    "template_groups": ("page_embeddings", "page_metadata", "page_profiles", "page_renders"),
    "hard_negatives": (
        "page_embeddings",
        "page_metadata",
        "document_facts",
        "page_profiles",
        "template_groups",
        "page_renders",
        "evidence_cells",
    ),
    "gold_sample": ("hard_negatives", "template_groups", "page_profiles", "page_renders"),
    "candidate_questions": ("gold_sample", "page_renders", "page_profiles", "document_facts"),
    "item_pools": (
        "candidate_questions",
        "corpus_manifest",
        "page_renders",
        "page_metadata",
        "page_embeddings",
        "hard_negatives",
        "comparative_pages",
        "template_groups",
        "evidence_pages",
        "evidence_cells",
    ),
    "validated_questions": (
        "candidate_questions",
        "item_pools",
        "documents",
        "page_renders",
        "page_metadata",
        "document_facts",
        "page_profiles",
        "evidence_pages",
        "evidence_cells",
    ),
    "candidate_labels": (
        "validated_questions",
        "item_pools",
        "hard_negatives",
        "page_renders",
        "page_metadata",
        "document_facts",
        "page_profiles",
        "evidence_pages",
        "evidence_cells",
    ),
    "golden_set": (
        "validated_questions",
        "funnel",
        "candidate_labels",
        "candidate_questions",
        "page_renders",
        "page_metadata",
        "template_groups",
        "page_embeddings",
        "corpus_manifest",
        "regression_items",
    ),
    "baseline_scores": (
        "golden_set",
        "page_renders",
        "corpus_manifest",
        "candidate_questions",
        "template_groups",
        "page_embeddings",
    ),
}

STAGES = tuple(READS)  # in build order
STAGE_MODULES = {stage: f"{PACKAGE}.core.pipeline.{stage}" for stage in STAGES}


def writes(stage: str) -> frozenset[str]:
    return frozenset(name for name, producer in PRODUCER.items() if producer == stage)


def upstream(stage: str) -> tuple[str, ...]:
    """The assets `stage` depends on: the producers of what it reads, itself left out, in build order."""
    producers = {p for name in READS[stage] if (p := PRODUCER[name]) is not None} - {stage}
    order = (*EXTERNAL, *STAGES)
    return tuple(sorted(producers, key=order.index))


class UndeclaredRead(RuntimeError):
    """A stage touched a table it does not declare in READS (Dagster would not know it is upstream)."""


@dataclass(frozen=True)
class StagePaths(DataPaths):
    """The data directory as one stage sees it: tables outside its READS and its own outputs raise."""

    stage: str = ""
    allowed: frozenset[str] = field(default_factory=frozenset)

    def _check(self, name: str) -> None:
        if name not in self.allowed:
            producer = PRODUCER.get(name, "no stage")
            raise UndeclaredRead(
                f"stage {self.stage} read `{name}` (written by {producer}) without declaring it: add it to "
                f"READS[{self.stage!r}] in core/pipeline/graph.py, so Dagster knows that {producer} is upstream"
            )

    def table(self, name: str) -> Path:
        self._check(name)
        return super().table(name)

    def table_file(self, filename: str) -> Path:
        self._check(filename.split(".", 1)[0])
        return super().table_file(filename)


def stage_paths(root: str | Path, stage: str) -> StagePaths:
    """`DataPaths` for a run of `stage` that enforces its declared reads."""
    return StagePaths(Path(root), stage=stage, allowed=frozenset(READS[stage]) | writes(stage))


# --- code versions -------------------------------------------------------------------------------

_DATA_SUFFIXES = (".md", ".json", ".txt", ".yaml")


def _data_files(sources: list[Path]) -> list[Path]:
    """Non-Python files in a data folder (no __init__.py) that a closure module beside it names as a
    string (`core/vlm/prompt_files.py`: "prompts"): the files that module reads, not every data
    folder next to any module the stage happens to import."""
    out: set[Path] = set()
    for folder in {p.parent for p in sources}:
        texts = [p.read_text(encoding="utf-8") for p in sources if p.parent == folder]
        for sub in folder.iterdir():
            if not sub.is_dir() or (sub / "__init__.py").exists() or sub.name == "__pycache__":
                continue
            if any(f'"{sub.name}"' in t or f"'{sub.name}'" in t for t in texts):
                out |= {f for f in sub.rglob("*") if f.is_file() and f.suffix in _DATA_SUFFIXES}
    return sorted(out)


@cache
def code_version(stage: str) -> str:
    """12 hex of sha256 over the stage module's import closure and its data files."""
    sources = import_closure(STAGE_MODULES[stage], PACKAGE_DIR)
    if not sources:
        raise FileNotFoundError(
            f"stage {stage}: module {STAGE_MODULES[stage]} not found under {PACKAGE_DIR}"
        )
    h = hashlib.sha256()
    for f in [*sources, *_data_files(sources)]:
        h.update(f.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


__all__ = [
    "EXTERNAL",
    "PRODUCER",
    "READS",
    "STAGES",
    "StagePaths",
    "UndeclaredRead",
    "code_version",
    "import_closure",
    "stage_paths",
    "upstream",
    "writes",
]
