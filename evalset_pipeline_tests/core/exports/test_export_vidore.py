"""vidore-benchmark 5.0.0's BEIR evaluator runs on the `vidore` export, for an image and a text retriever.

vidore-benchmark pins mteb<1.17, which cannot be installed beside the test extra's mteb 2.x, so
it lives in its own environment (`.venv-vidore`, made by `make install-test` from
evalset_pipeline_tests/support/vidore-requirements.txt). The export is written here; the
evaluator runs there (support/vidore_eval.py) with two weight-free stand-in retrievers and hands
back its metrics and the run they came from, which `evalset score` then scores.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from evalset_pipeline.core.exports import export_golden_set
from evalset_pipeline.core.scoring.conventions import KS
from evalset_pipeline.core.scoring.metrics import score_run
from evalset_pipeline.core.scoring.qrels import qrels_from_golden
from evalset_pipeline.core.scoring.report import summarize
from evalset_pipeline.core.scoring.runs import run_from_columns
from evalset_pipeline_tests.core.exports.export_fixtures import publish_export_case

REPO = Path(__file__).resolve().parents[3]
VIDORE_PYTHON = REPO / ".venv-vidore" / "bin" / "python"
SCRIPT = REPO / "evalset_pipeline_tests" / "support" / "vidore_eval.py"
SPLITS = {"test": "main", "underspecified": "underspecified", "regression": "regression"}
ROUNDED = (
    5e-6 + 1e-12
)  # vidore-benchmark (mteb 1.16) rounds nDCG/Recall means to 5 decimals; MRR is not rounded

pytestmark = [
    pytest.mark.e2e,  # runs vidore-benchmark in its own venv, as a subprocess
    pytest.mark.skipif(
        not VIDORE_PYTHON.exists(),
        reason="no .venv-vidore: `make install-test` creates it (vidore-benchmark 5.0.0)",
    ),
]


def test_vidore_benchmark_evaluator_runs_on_the_export_for_image_and_text_retrievers(
    data_dir, tmp_path
):
    golden = publish_export_case(data_dir)
    out = tmp_path / "vidore"
    export_golden_set(golden, "vidore", out)
    report_path = tmp_path / "vidore_report.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_CACHE": str(tmp_path / "hf-cache")}
    proc = subprocess.run(
        [str(VIDORE_PYTHON), str(SCRIPT), str(out), str(report_path), *SPLITS],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(report_path.read_text())
    qrels = qrels_from_golden(golden)
    for split, slice_name in SPLITS.items():
        assert report[split]["image"]["passage_column"] == "image"
        assert report[split]["text"]["passage_column"] == "text_description"
        for retriever in ("image", "text"):
            theirs = report[split][retriever]["metrics"]
            q, u, s = zip(*report[split][retriever]["run"], strict=False)
            assert len(set(u)) == 20  # ranked over the whole exported corpus
            ours = summarize(score_run(qrels, run_from_columns(q, u, s), gain="binary"))[slice_name]
            assert ours.n_scored == len(set(q))
            for k in KS:
                assert abs(theirs[f"mrr_at_{k}"] - ours.metrics[f"mrr@{k}"]) <= 1e-9, (
                    split,
                    retriever,
                    k,
                )
                if slice_name != "underspecified":  # evalset reports no recall/nDCG there
                    assert abs(theirs[f"ndcg_at_{k}"] - ours.metrics[f"ndcg@{k}"]) <= ROUNDED, (
                        split,
                        retriever,
                        k,
                    )
                    assert abs(theirs[f"recall_at_{k}"] - ours.metrics[f"recall@{k}"]) <= ROUNDED, (
                        split,
                        retriever,
                        k,
                    )
    # The two retrievers really read different columns: their scores differ.
    assert report["test"]["image"]["run"] != report["test"]["text"]["run"]
