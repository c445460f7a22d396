"""Issue 16: publishing that cannot be fooled, attacked with real processes and real files.

One tiny corpus (one entity, two periods) and one data directory carry most tests in order:
two concurrent `evalset build` processes, reverted inputs, a small set, held DuckDB files.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from evalset_pipeline.cli.main import main
from evalset_pipeline.core.golden.reader import list_golden_sets, load_golden_set, publish_history
from evalset_pipeline.defs.instance import open_instance
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

EVALSET = str(Path(sys.executable).with_name("evalset"))
ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}


def cli(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if env:
            mp = stack.enter_context(pytest.MonkeyPatch.context())
            for k, v in env.items():
                mp.setenv(k, v)
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def build(
    corpus: Path, data: Path, *extra: str, env: dict[str, str] | None = None
) -> tuple[int, dict | None, str]:
    rc, out, err = cli(
        "build",
        "--corpus",
        str(corpus),
        "--data-dir",
        str(data),
        "--workers",
        "2",
        "--json",
        *extra,
        env=env,
    )
    return rc, (json.loads(out) if rc == 0 else None), err


@pytest.fixture(scope="module")
def corpora(tmp_path_factory) -> tuple[Path, Path]:
    one = tmp_path_factory.mktemp("corpus_one")
    generate_sample_corpus(one, entities=1, periods=2)
    two = tmp_path_factory.mktemp("corpus_two")
    shutil.copytree(one, two, dirs_exist_ok=True)
    pdfs = sorted(two.rglob("*.pdf"))
    pdfs[-1].unlink()  # another corpus: one document fewer
    return one, two


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("data_guarantees")


def _wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_two_builds_on_one_data_dir_never_mix_corpora(corpora, data):
    """#2: build A holds the directory; B fails at once naming A; C --wait queues behind A."""
    one, two = corpora
    a = subprocess.Popen(
        [
            EVALSET,
            "build",
            "--corpus",
            str(one),
            "--data-dir",
            str(data),
            "--json",
            "--workers",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=ENV,
    )
    holders = data / ".build.holders"
    _wait_for(lambda: holders.is_dir() and any(holders.glob("*.json")))
    b = subprocess.run(
        [EVALSET, "build", "--corpus", str(two), "--data-dir", str(data), "--json"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert b.returncode == 3, b.stderr[-2000:]
    assert (
        f"pid {a.pid}" in b.stderr and str(one.resolve()) in b.stderr and "started 20" in b.stderr
    ), b.stderr
    assert a.poll() is None, "A must still have been running when B was turned away"
    c = subprocess.Popen(
        [
            EVALSET,
            "build",
            "--corpus",
            str(two),
            "--data-dir",
            str(data),
            "--json",
            "--wait",
            "--workers",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    out_a, _ = a.communicate(timeout=300)
    out_c, err_c = c.communicate(timeout=300)
    assert a.returncode == 0 and c.returncode == 0, err_c[-3000:]
    assert f"waiting: evalset build pid {a.pid}" in err_c
    sa, sc = json.loads(out_a), json.loads(out_c)
    assert sa["corpus"]["documents"] == sc["corpus"]["documents"] + 1
    history = publish_history(data)
    assert [e["version_id"] for e in history] == [
        sa["version_id"],
        sc["version_id"],
    ]  # one after the other
    assert load_golden_set(sa["version_id"], data).units.num_rows > 0
    instance = open_instance(data)
    try:  # B was turned away before starting a run: the instance holds A's and C's only
        assert len(instance.get_runs()) == 2
    finally:
        instance.dispose()
    assert not any(holders.glob("*.json"))  # both let go


def test_reverting_an_input_moves_latest_back(corpora, data):
    """#3: A (corpus one) -> typo in metadata.csv -> B -> typo reverted -> A is latest again, everywhere."""
    one, _ = corpora
    rc, first, err = build(one, data)
    assert rc == 0, err[-3000:]
    sidecar = one / "metadata.csv"
    original = sidecar.read_text(encoding="utf-8")
    entity = original.splitlines()[1].split(",")[3]
    sidecar.write_text(original.replace(entity, entity + "x", 3), encoding="utf-8")
    try:
        rc, typo, err = build(one, data)
        assert rc == 0 and typo["new_version"], err[-3000:]
    finally:
        sidecar.write_text(original, encoding="utf-8")
    rc, again, err = build(one, data)
    assert rc == 0, err[-3000:]
    assert again["version_id"] == first["version_id"] != typo["version_id"]
    assert not again["new_version"] and again["latest_moved"]
    assert load_golden_set("latest", data).version_id == first["version_id"]
    with duckdb.connect(str(data / "golden" / "evalsets_read.duckdb"), read_only=True) as con:
        assert (
            con.execute("SELECT version_id FROM latest_golden_set").fetchone()[0]
            == first["version_id"]
        )
    with duckdb.connect(str(data / "evalsets.duckdb"), read_only=True) as con:
        assert (
            con.execute("SELECT version_id FROM latest_golden_items LIMIT 1").fetchone()[0]
            == first["version_id"]
        )
        assert con.execute("SELECT count(*) FROM golden_sets").fetchone()[0] == len(
            list_golden_sets(data)
        )
    history = publish_history(data)
    assert [e["version_id"] for e in history[-3:]] == [
        first["version_id"],
        typo["version_id"],
        first["version_id"],
    ]
    assert history[-1]["new_version"] is False
    assert [r["version_id"] for r in list_golden_sets(data) if r["is_latest"]] == [
        first["version_id"]
    ]
    rc, out, _ = cli("golden", "history", "--data-dir", str(data))
    assert rc == 0 and "confirmed again" in out


def test_a_small_set_is_published_with_a_visible_warning(corpora, data):
    """#7: fewer main items than the minimum: published, and the summary says so (not a DEBUG line)."""
    one, _ = corpora
    rc, summary, err = build(one, data, "--sample-size", "4")
    assert rc == 0, err[-3000:]
    assert summary["by_slice"].get("main", 0) < 10
    assert any(
        w.startswith("candidate_labels_min_kept_items: only") for w in summary["warnings"]
    ), summary["warnings"]
    rc, out, _ = cli("build", "--corpus", str(one), "--data-dir", str(data), "--sample-size", "4")
    assert rc == 0 and "warning: candidate_labels_min_kept_items: only" in out


_HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1], read_only=sys.argv[2] == "ro")
print("held", flush=True)
time.sleep(600)  # killed by holding() when its block ends
"""


@contextlib.contextmanager
def holding(path: Path, mode: str):
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path), mode], stdout=subprocess.PIPE, text=True, env=ENV
    )
    try:
        assert proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_held_duckdb_files_give_documented_errors_and_readers_never_block_for_long(corpora, data):
    """#8: another process writing the model-call cache; a long-lived reader on the warehouse."""
    one, _ = corpora
    with holding(data / "cache" / "model_calls.duckdb", "rw") as holder:
        rc, _, err = build(one, data, "--seed", "21", env={"EVALSET_CACHE_WAIT_S": "1"})
    assert rc == 1
    line = next(x for x in err.splitlines() if x.startswith("error in "))
    assert (
        "ModelCallCacheLocked" in line
        and f"process {holder.pid}" in line
        and "IOException" not in line
    ), line
    with holding(data / "evalsets.duckdb", "ro") as reader:
        rc, summary, err = build(one, data, "--seed", "21", env={"EVALSET_WAREHOUSE_WAIT_S": "1"})
        # Ordered by events, not timed: the build published while the reader still held the file.
        assert reader.poll() is None
    assert rc == 0, err[-3000:]
    assert any("evalsets.duckdb" in w and "next publish" in w for w in summary["warnings"]), (
        summary["warnings"]
    )
    assert load_golden_set("latest", data).version_id == summary["version_id"]
    rc, again, err = build(one, data, "--seed", "21")  # reader gone: the warehouse catches up
    assert rc == 0 and not again["warnings"], err[-2000:]
    with duckdb.connect(str(data / "evalsets.duckdb"), read_only=True) as con:
        assert (
            con.execute("SELECT version_id FROM latest_golden_set").fetchone()[0]
            == summary["version_id"]
        )


def test_no_pdfs_and_zero_kept_items_say_so(tmp_path):
    """#7: an empty corpus names the folder; a corpus where nothing survives ends in one paragraph."""
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, _, err = build(empty, tmp_path / "d0")
    assert rc == 2 and f"no PDFs under {empty}" in err
    from evalset_pipeline.definitions import all_assets
    from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource

    result = dg.materialize(
        all_assets,
        selection=["documents"],
        raise_on_error=False,
        resources={
            "settings": PipelineSettings(data_dir=str(tmp_path / "d0"), corpus_dir=str(empty)),
            "vlm": VLMResource(),
            "embedder": EmbedderResource(),
        },
    )
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure).step_failure_data.error
    assert "no PDFs under" in (failure.cause.message if failure.cause else failure.message)

    import pymupdf

    blank = tmp_path / "blank"
    blank.mkdir()
    for n in range(3):  # pages without text: nothing to ask, nothing kept
        doc = pymupdf.open()
        for _ in range(3):
            doc.new_page()
        doc.save(blank / f"b{n}.pdf")
    rc, _, err = build(blank, tmp_path / "d1")
    assert rc == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: no golden set was published") and "Funnel: sampled" in last, last
    assert not (tmp_path / "d1" / "golden" / "versions").exists()
