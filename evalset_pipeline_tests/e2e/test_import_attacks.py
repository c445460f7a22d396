"""Issue 30's attacks on `evalset import` and `evalset score`, through the real `evalset` command in
its own process on a real build: an import does not take over "latest"; hostile paths and files
are one line on stderr, never a traceback or a hang; the lock behaves as for a build; the jsonl and
MTEB exports import; a run of unknown ids, infinite scores or word ranks is refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from evalset_pipeline.core.buildlock import build_lock
from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.paths import DataPaths

EVALSET = str(Path(sys.executable).with_name("evalset"))


def evalset(*args: str) -> subprocess.CompletedProcess:
    # timeout: a safety net so a regression (a FIFO opened again) fails instead of hanging the suite
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([EVALSET, *args], capture_output=True, text=True, env=env, timeout=600)


def one_line_error(done: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def built(golden_build) -> tuple[Path, Path, str]:
    corpus, data = golden_build.small()
    return corpus, data, load_golden_set("latest", data).version_id


def _questions(data: Path, version: str, n: int) -> list[dict]:
    """`n` valid rows on the build's own gold pages, then bad rows (unknown page, not JSON)."""
    gs = load_golden_set(version, data)
    units = {u["unit_id"]: u for u in gs.units.to_pylist()}
    rows = []
    for item in gs.items.to_pylist()[:n]:
        u = units[item["gold_unit_id"]]
        rows.append(
            {
                "id": item["item_id"],
                "question": item["question"],
                "answer": item["answer"],
                "document": u["document_path"],
                "evidence_pages": [u["page_number"]],
            }
        )
    rows.append(
        {
            "id": "bad-page",
            "question": "Which?",
            "document": u["document_path"],
            "evidence_pages": [999],
        }
    )
    return rows


def _jsonl(path: Path, rows: list) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n{not json\n",
        encoding="utf-8",
    )
    return path


def _sql_latest(data: Path) -> str:
    with duckdb.connect(str(data / "golden" / "evalsets_read.duckdb"), read_only=True) as con:
        [(version,)] = con.execute("SELECT version_id FROM latest_golden_set").fetchall()
    return str(version)


def test_an_import_never_becomes_latest_unless_asked(built, tmp_path):
    _, data, build_version = built
    (tmp_path / "bench").mkdir()
    path = _jsonl(tmp_path / "bench" / "q.jsonl", _questions(data, build_version, 2))
    done = evalset("import", "jsonl", str(path), "--data-dir", str(data), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    imported = summary["version_id"]
    assert (
        summary["imported"] == 2 and summary["is_latest"] is False and len(summary["issues"]) == 2
    )
    # latest is still the build's: the Python API, the SQL views and LATEST agree
    assert load_golden_set("latest", data).version_id == build_version
    assert _sql_latest(data) == build_version
    assert load_golden_set(imported, data).info["provenance"]["kind"] == "import"
    # the import is named in the history, and is what `report hardening` reads by default
    history = json.loads(evalset("golden", "history", "--data-dir", str(data), "--json").stdout)
    assert {"version_id": imported, "kind": "import", "event": None}.items() <= next(
        h for h in history if h["version_id"] == imported
    ).items()
    text = evalset("golden", "history", "--data-dir", str(data)).stdout
    assert imported in text and "not latest" in text
    report = evalset("report", "hardening", "--data-dir", str(data), "--no-baseline", "--json")
    assert report.returncode == 0, report.stderr
    assert imported in report.stdout
    assert evalset("golden", "verify", "--data-dir", str(data)).returncode == 0

    # asked: the import becomes latest, everywhere at once
    done = evalset("import", "jsonl", str(path), "--data-dir", str(data), "--as-latest", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["is_latest"] is True, done.stderr
    assert load_golden_set("latest", data).version_id == imported == _sql_latest(data)
    assert evalset("golden", "verify", "--data-dir", str(data)).returncode == 0


def test_hostile_paths_and_files_are_one_line_errors(built, tmp_path):
    _, data, _ = built
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)  # nobody ever writes to it: opening it for reading would block forever
    (tmp_path / "dir.jsonl").mkdir()
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    expected = {
        fifo: "is a FIFO (named pipe), not a regular file: refused",
        tmp_path / "dir.jsonl": "is a directory: give the file inside it",
        loop: "is a symlink loop",
        empty: "holds no rows",
        Path(os.devnull): "is a device",
    }
    for path, reason in expected.items():
        done = evalset("import", "jsonl", str(path), "--data-dir", str(data))
        assert done.returncode == 1
        line = one_line_error(done)
        assert reason in line and str(path) in line, line
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "queries.jsonl").write_text('{"_id": "q1", "text": "x?"}\n')
    (beir / "corpus.jsonl").write_text('{"_id": "c1"}\n')
    (beir / "qrels" / "test.tsv").symlink_to(beir / "qrels" / "test.tsv")
    done = evalset("import", "beir", str(beir), "--data-dir", str(data))
    assert done.returncode == 1 and "test.tsv is a symlink loop" in one_line_error(done)


def test_a_large_import_says_how_far_it_is_and_the_row_budget_refuses(built, tmp_path):
    _, data, build_version = built
    one = _questions(data, build_version, 1)[0]
    rows = [{**one, "id": f"q{i}", "question": f"{one['question']} ({i})"} for i in range(700)]
    path = _jsonl(tmp_path / "many.jsonl", rows)
    done = evalset("import", "jsonl", str(path), "--data-dir", str(data), "--max-rows", "699")
    assert done.returncode == 1 and "more than 699 rows" in one_line_error(done)
    done = evalset("import", "jsonl", str(path), "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    progress = [line for line in done.stderr.splitlines() if line.startswith("judging: ")]
    assert len(progress) >= 2 and progress[-1].endswith("(100%)"), done.stderr


def test_a_failed_import_into_a_missing_data_dir_does_not_create_it(built, tmp_path):
    _, data, build_version = built
    path = _jsonl(tmp_path / "q.jsonl", _questions(data, build_version, 1))
    missing = tmp_path / "no-such-data"
    done = evalset("import", "jsonl", str(path), "--data-dir", str(missing))
    assert done.returncode == 1 and "does not exist" in one_line_error(done)
    assert not missing.exists()


def test_the_lock_refuses_with_the_build_exit_code_and_wait_says_whom_it_waits_for(built, tmp_path):
    _, data, build_version = built
    path = _jsonl(tmp_path / "q.jsonl", _questions(data, build_version, 1))
    paths = DataPaths.at(data)
    with build_lock(paths, "/corpus/held-by-test"):
        done = evalset("import", "jsonl", str(path), "--data-dir", str(data))
        assert done.returncode == 3  # as `evalset build`
        assert "evalset build pid" in one_line_error(done)
        waiting = subprocess.Popen(
            [EVALSET, "import", "jsonl", str(path), "--data-dir", str(data), "--wait"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert waiting.stderr is not None
        first = waiting.stderr.readline()  # blocks until the import says it waits
        assert first.startswith("waiting: evalset build pid"), first
    out, err = waiting.communicate(timeout=600)
    assert waiting.returncode == 0, err
    # what a second process is told while an import holds the directory
    with build_lock(paths, str(path), kind="evalset import"):
        record = json.loads((paths.build_holders / f"{os.getpid()}.json").read_text())
        assert record["kind"] == "evalset import" and record["corpus"] == str(path)
        done = evalset("import", "jsonl", str(path), "--data-dir", str(data))
        assert done.returncode == 3 and f"evalset import pid {os.getpid()}" in done.stderr
        assert f"input {path}" in done.stderr


def test_the_jsonl_and_mteb_exports_import(built, tmp_path):
    _, data, build_version = built
    out = tmp_path / "jsonl"
    done = evalset(
        "golden",
        "export",
        "--format",
        "jsonl",
        "--out",
        str(out),
        "--data-dir",
        str(data),
        "--version",
        build_version,
    )
    assert done.returncode == 0, done.stderr
    done = evalset("import", "jsonl", str(out / "golden.jsonl"), "--data-dir", str(data), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["issues"] == []
    exported = [json.loads(line) for line in (out / "golden.jsonl").read_text().splitlines()]
    imported = load_golden_set(summary["version_id"], data)
    prov = imported.info["provenance"]["items"]
    by_original = {prov[i["item_id"]]["original_id"]: i for i in imported.items.to_pylist()}
    assert set(by_original) == {r["item_id"] for r in exported}
    golds: dict[str, set[str]] = {}
    for j in imported.judgments.to_pylist():
        if j["role"] == "gold":
            golds.setdefault(prov[j["item_id"]]["original_id"], set()).add(j["unit_id"])
    assert golds == {
        r["item_id"]: {c["unit_id"] for c in r["candidates"] if c["score"] > 0} for r in exported
    }

    mteb = tmp_path / "mteb"
    done = evalset(
        "golden",
        "export",
        "--format",
        "mteb",
        "--out",
        str(mteb),
        "--data-dir",
        str(data),
        "--version",
        build_version,
    )
    assert done.returncode == 0, done.stderr
    done = evalset("import", "mteb", str(mteb), "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    assert "warning: no query in" in done.stderr and "has an answer" in done.stderr


def _baseline(data: Path, version: str, out: Path) -> list[list[str]]:
    done = evalset(
        "baseline",
        "--retriever",
        "random",
        "--out",
        str(out),
        "--golden",
        version,
        "--data-dir",
        str(data),
    )
    assert done.returncode == 0, done.stderr
    return [line.split() for line in out.read_text().splitlines() if not line.startswith("#")]


def _write_run(path: Path, rows: list[list[str]]) -> Path:
    path.write_text("\n".join(" ".join(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_score_refuses_runs_that_would_mislead(built, tmp_path):
    _, data, build_version = built
    rows = _baseline(data, build_version, tmp_path / "random.trec")
    score = lambda p: evalset("score", str(p), "--golden", build_version, "--data-dir", str(data))  # noqa: E731
    assert score(tmp_path / "random.trec").returncode == 0

    # every unit id unknown: refused (it used to score 0.000 and exit 0), naming file and an id
    fake = _write_run(
        tmp_path / "fake.trec", [[q, z, "fake-" + u, *rest] for q, z, u, *rest in rows]
    )
    done = score(fake)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "none of the" in done.stderr and str(fake) in done.stderr and "'fake-" in done.stderr
    # most unknown (the whole corpus is known here): refused too
    kept = set(sorted({r[2] for r in rows})[::4])  # a quarter of the pages keep their id
    mostly = _write_run(
        tmp_path / "mostly.trec",
        [[q, z, u if u in kept else "fake-" + u, *rest] for q, z, u, *rest in rows],
    )
    done = score(mostly)
    assert done.returncode == 2 and "only " in done.stderr and "limit 50%" in done.stderr
    assert (
        evalset(
            "score",
            str(mostly),
            "--golden",
            build_version,
            "--data-dir",
            str(data),
            "--allow-unknown-units",
        ).returncode
        == 0
    )

    for name, (column, value), reason in (
        ("inf.trec", (4, "inf"), "not a finite number"),
        ("huge.trec", (4, "1e400"), "not a finite number"),
        ("rank.trec", (3, "first"), "rank that is not an integer: row 2"),
    ):
        bad = [list(r) for r in rows]
        bad[1][column] = value
        done = score(_write_run(tmp_path / name, bad))
        assert done.returncode == 1 and reason in one_line_error(done), done.stderr

    garbage = tmp_path / "garbage.trec"
    garbage.write_bytes(bytes(range(256)) * 4)
    done = score(garbage)
    assert done.returncode == 1
    line = one_line_error(done)
    assert "not a run file" in line and str(garbage) in line and "codec" not in line


def test_an_import_killed_while_staging_publishes_nothing_and_the_next_one_cleans_up(
    built, tmp_path
):
    """Rows stream into a staging file in the data directory; SIGKILL mid-way leaves no version,
    latest where it was, and a staging directory the next import (holding the lock) removes."""
    _, data, build_version = built
    one = _questions(data, build_version, 1)[0]
    rows = [{**one, "id": f"k{i}", "question": f"{one['question']} [{i}]"} for i in range(3000)]
    path = _jsonl(tmp_path / "killed.jsonl", rows)
    before = sorted(p.name for p in (data / "golden" / "versions").iterdir())
    latest = (data / "golden" / "LATEST").read_bytes()
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen(
        [EVALSET, "import", "jsonl", str(path), "--data-dir", str(data)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    for line in proc.stderr:  # the first batch is staged: rows are on disk, nothing published
        if line.startswith("judging: "):
            break
    proc.kill()
    proc.wait(timeout=60)
    assert sorted(p.name for p in (data / "golden" / "versions").iterdir()) == before
    assert (data / "golden" / "LATEST").read_bytes() == latest
    assert list(data.glob(".import-staging-*"))  # what the killed import left
    done = evalset("import", "jsonl", str(path), "--data-dir", str(data), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["imported"] == 3000
    assert not list(data.glob(".import-staging-*"))
    assert (data / "golden" / "LATEST").read_bytes() == latest  # an import, not latest
