"""SIGKILL at any stage, then rebuild: nothing duplicated, nothing partial, no half-published golden
version, and the result equals an uninterrupted build.

One data directory is killed four times in a row (after N renders, while the index is built,
while questions are written, as the golden set is published), each run resuming what the
previous one left, and then built to the end. The uninterrupted reference is the bad-input build
of the same corpus in another data directory (shared with test_bad_input.py).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from evalset_pipeline.cli.main import main
from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.render.pages import TMP_DIR

EVALSET = str(Path(sys.executable).with_name("evalset"))


def _pngs(data: Path) -> int:
    return sum(
        1
        for p in (data / "artifacts" / "renders").glob("*/*.png")
        if not p.name.endswith(".thumb.png")
    )


def _step_started(step: str):
    return lambda line, data: f'Started execution of step "{step}"' in line


# (name, trigger(line, data_dir) -> bool, delay after the trigger before SIGKILL)
KILLS = [
    ("after 25 renders", lambda line, data: _pngs(data) >= 25, 0.0),
    ("building the index", _step_started("template_groups"), 0.2),
    ("writing questions", _step_started("candidate_questions"), 0.3),
    ("publishing the golden set", _step_started("golden_set"), 0.0),
]


def _build(
    corpus: Path, data: Path, trigger=None, delay: float = 0.0, timeout: float = 300
) -> tuple[bool, int, str]:
    """Run `evalset build` in its own process group; SIGKILL the group once `trigger` fires.
    Returns (killed, returncode, output)."""
    # --verbose: the step events the kill points wait for (quiet by default)
    cmd = [
        EVALSET,
        "build",
        "--corpus",
        str(corpus),
        "--data-dir",
        str(data),
        "--json",
        "--workers",
        "2",
        "--verbose",
    ]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    lines: queue.Queue = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True)  # noqa: E741
    reader.start()
    out: list[str] = []
    deadline = time.monotonic() + timeout
    fired = False
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.01)
            out.append(line)
        except queue.Empty:
            line = ""
        if trigger is not None and trigger(line, data):
            fired = True
            time.sleep(delay)
            os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its render/embed workers, all at once
            break
    if proc.poll() is None and not fired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail(f"build did not finish in {timeout}s:\n" + "".join(out[-40:]))
    proc.wait()
    reader.join(timeout=10)
    while not lines.empty():
        out.append(lines.get())
    return fired, proc.returncode, "".join(out)


def _rows(data: Path, table: str, *cols: str) -> list[tuple]:
    t = pq.read_table(data / "artifacts" / "tables" / f"{table}.parquet").to_pylist()
    return sorted(tuple(json.dumps(r[c], sort_keys=True) for c in cols) for r in t)


def _assert_no_partial_golden(data: Path, reference: str) -> None:
    """Whatever a kill left: a visible golden set is whole, and it is the reference version."""
    golden = data / "golden"
    if (golden / "LATEST").exists():
        assert load_golden_set("latest", data).version_id == reference  # verifies the content hash
    versions = (
        sorted(p.name for p in (golden / "versions").iterdir())
        if (golden / "versions").exists()
        else []
    )
    assert versions in ([], [reference]), versions


def test_sigkill_at_each_stage_then_rebuild_equals_an_uninterrupted_build(
    tmp_path_factory, golden_build
):
    ref = golden_build.bad_corpus()
    assert ref.rc == 0, ref.stderr[-3000:]
    reference = ref.summary["version_id"]
    corpus, data = ref.corpus.root, tmp_path_factory.mktemp("killed") / "data"

    for name, trigger, delay in KILLS:
        t0, c0 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
        killed, rc, out = _build(corpus, data, trigger, delay)
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(
            f"killed {name}: {time.monotonic() - t0:.1f}s wall, "
            f"{c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime:.1f}s cpu"
        )
        assert killed and rc == -signal.SIGKILL, (
            f"kill point '{name}' never came (rc {rc}):\n{out[-3000:]}"
        )
        _assert_no_partial_golden(data, reference)
    assert _pngs(data) > 0

    # The rebuild, in this process (saves an interpreter start).
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        rc = main(
            ["build", "--corpus", str(corpus), "--data-dir", str(data), "--json", "--workers", "2"]
        )
    assert rc == 0, stderr.getvalue()[-4000:]
    summary = json.loads(stdout.getvalue())
    assert summary["version_id"] == reference  # the same golden set as the uninterrupted build

    # No partial or duplicate artifacts.
    golden = data / "golden"
    assert sorted(p.name for p in (golden / "versions").iterdir()) == [reference]
    assert not [p.name for p in golden.iterdir() if p.name.startswith(".tmp")]
    with duckdb.connect(str(data / "evalsets.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM golden_sets").fetchone()[0] == 1
    with duckdb.connect(str(data / "cache" / "model_calls.duckdb"), read_only=True) as con:
        n, distinct = con.execute(
            "SELECT count(*), count(DISTINCT key) FROM model_calls"
        ).fetchone()
        assert n == distinct
    renders = data / "artifacts" / "renders"
    assert not list((renders / TMP_DIR).iterdir())
    leftovers = [
        p.relative_to(data).as_posix()
        for p in data.rglob("*")
        if p.is_file() and (p.name.endswith(".tmp") or ".tmp-" in p.name)
    ]
    assert not [p for p in leftovers if p.startswith(("artifacts/renders", "golden"))], leftovers
    if (
        leftovers
    ):  # write_bytes_atomic temp files a kill can leave beside a table; never read, not swept
        print("temp files left by a kill (outside renders/golden):", leftovers)
    page_rows = _rows(
        data, "page_renders", "render_key", "render_hash", "text_hash", "unit_id", "document_path"
    )
    assert page_rows == _rows(
        ref.data_dir,
        "page_renders",
        "render_key",
        "render_hash",
        "text_hash",
        "unit_id",
        "document_path",
    )
    assert _pngs(data) == len(
        page_rows
    )  # exactly one render per page: nothing orphaned, nothing twice
    assert sorted(p.name for p in renders.rglob("*") if p.is_file()) == sorted(
        p.name for p in (ref.data_dir / "artifacts" / "renders").rglob("*") if p.is_file()
    )
    for table, cols in [
        ("documents", ("document_sha256", "paths", "page_count")),
        ("rejected_documents", ("path", "sha256", "reason", "stage")),
        ("validated_questions", ("item_id", "question", "answer", "slice")),
        ("funnel", ("item_id", "stage", "decision", "reason", "question")),
        ("candidate_labels", ("item_id", "unit_id", "label")),
    ]:
        assert _rows(data, table, *cols) == _rows(ref.data_dir, table, *cols), table
    shutil.rmtree(data.parent, ignore_errors=True)
