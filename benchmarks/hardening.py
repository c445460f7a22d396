"""`python -m benchmarks hardening [--corpus DIR] [--data-dir D] [--retriever text]`: harden FinanceBench-dev.

Builds DIR (default ../shared/realdocs/financebench-dev; its `pdfs/` and `questions.jsonl`) through
Dagster with no sidecar (every asset but the `scores` group; a data dir that already holds the
build is reused: nothing is rendered twice), imports `questions.jsonl` with the offline
answer-evidence judge, and prints one JSON line:

  mapped_share        gold pages (evidence pages) mapped onto units, of all named     goal 1.0
  printed_sufficient  of the questions whose answer is printed on a human evidence   goal >= 0.9
                      page, the share whose page the judge finds sufficient (k, n, 95% CI)
  computed            questions whose answer is printed on no evidence page, and how the judge labelled them
  siblings            per axis, questions a one-axis sibling answers (k, n, share, 95% CI)
  before_after        the baseline retriever against the original qrels and the hardened set
  statuses, issues, seconds

The same figures, as tables: `evalset report hardening --data-dir D` after the import.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

DEFAULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdocs" / "financebench-dev"


def _build(pdfs: Path, data_dir: Path) -> None:
    import dagster as dg

    from evalset_pipeline.definitions import all_assets
    from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource

    resources = {
        "settings": PipelineSettings(data_dir=str(data_dir), corpus_dir=str(pdfs)),
        "vlm": VLMResource(backend="textlayer"),
        "embedder": EmbedderResource(model="appearance"),
    }
    dg.materialize(
        all_assets,
        resources=resources,
        selection=dg.AssetSelection.all() - dg.AssetSelection.groups("scores"),
        instance=dg.DagsterInstance.ephemeral(),
        raise_on_error=True,
    )


def run(
    corpus: str | None = None, data_dir: str | None = None, retriever: str = "text"
) -> dict[str, Any]:
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.imports.harden import harden
    from evalset_pipeline.core.imports.readers import read_source
    from evalset_pipeline.core.imports.report import hardening_report
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.reader.answer_evidence import AnswerEvidenceJudge

    root = Path(corpus or DEFAULT).resolve()
    pdfs, questions = root / "pdfs", root / "questions.jsonl"
    if not pdfs.is_dir() or not questions.is_file():
        raise ValueError(
            f"{root} needs pdfs/ and questions.jsonl (see ../shared/realdocs/README.md)"
        )
    scratch = None
    if data_dir is None:
        scratch = Path(tempfile.mkdtemp(prefix="evalset-hardening-"))
    paths = DataPaths(Path(data_dir) if data_dir else scratch)
    try:
        t0 = time.perf_counter()
        _build(pdfs, paths.root)
        built = time.perf_counter() - t0
        judge = AnswerEvidenceJudge()
        t1 = time.perf_counter()
        result, prov, resolution = harden(
            paths, read_source("jsonl", questions, source=root.name), judge.label, judge.identity()
        )
        imported = time.perf_counter() - t1
        report = hardening_report(
            load_golden_set(result.version_id, paths.root), paths, retriever=retriever
        ).to_dict()
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    jv = report["judge_validation"]
    mapped = prov["gold_refs_resolved"] / prov["gold_refs"] if prov["gold_refs"] else None
    return {
        "name": "hardening",
        "source": root.name,
        "version_id": result.version_id,
        "questions": prov["rows"],
        "imported": prov["imported"],
        "gold_refs": prov["gold_refs"],
        "mapped_share": mapped,
        "issues": [str(i) for i in resolution.issues],
        "statuses": prov["statuses"],
        "printed_sufficient": jv["printed"],
        "computed": jv["computed"],
        "no_content": jv["no_content"],
        "gold_not_sufficient": jv["gold_not_sufficient"],
        "macro_f1": jv["confusion"]["macro_f1"],
        "confusion": {"classes": jv["confusion"]["classes"], "matrix": jv["confusion"]["matrix"]},
        "by_declared_reasoning": jv["by_declared_reasoning"],
        "siblings": report["siblings"],
        "answering_examples": report["answering_examples"],
        "before_after": report.get("before_after"),
        "build_seconds": round(built, 1),
        "import_seconds": round(imported, 1),
        "ratio": jv["printed"]["share"],
    }
