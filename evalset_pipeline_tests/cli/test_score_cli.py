"""`evalset score` / `evalset compare`: report shapes, guard exit codes and warnings."""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

import pytest

from evalset_pipeline.cli import score as score_cli
from evalset_pipeline.cli.main import COMMAND_MODULES
from evalset_pipeline_tests.core.scoring.golden_builder import CORPUS_FP, make_golden


def _all_commands_importable() -> bool:
    try:
        for name in COMMAND_MODULES:
            importlib.import_module(name)
    except ImportError:
        return False
    return True


ALL_COMMANDS = _all_commands_importable()


def evalset(*argv: str) -> int:
    """Run the CLI as `evalset` does; while a sibling command module is missing, only ours."""
    if ALL_COMMANDS:
        from evalset_pipeline.cli.main import main

        return main(list(argv))
    parser = argparse.ArgumentParser(prog="evalset")
    score_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    return int(args.func(args) or 0)


N = 40


def golden_set(age_days: float = 1.0):
    items = [(f"q{i:02d}", "main" if i % 10 else "underspecified", f"g{i:02d}") for i in range(N)]
    judgments = [(f"q{i:02d}", f"g{i:02d}", "sufficient") for i in range(N)]
    judgments += [(f"q{i:02d}", f"s{i:02d}", "supporting") for i in range(N)]
    return make_golden(items, judgments, age_days=age_days)


def write_run(
    path: Path,
    gold_rank: dict[int, int],
    fingerprint: str | None = CORPUS_FP,
    pages: int | None = None,
) -> Path:
    """TREC run: query i gets 5 results with its gold unit at gold_rank[i] (queries not listed: absent)."""
    lines = []
    if fingerprint:
        lines.append(f"# corpus_fingerprint: {fingerprint}")
    if pages:
        lines.append(f"# corpus_pages: {pages}")
    for i, r in gold_rank.items():
        for pos in range(1, 6):
            unit = f"g{i:02d}" if pos == r else f"x{i:02d}-{pos}"
            lines.append(f"q{i:02d} Q0 {unit} {pos} {10 - pos} {path.stem}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def use_golden(monkeypatch: pytest.MonkeyPatch):
    def install(golden) -> None:
        monkeypatch.setattr(score_cli, "load_golden", lambda version, data_dir: golden)

    install(golden_set())
    return install


def test_score_json_report(tmp_path: Path, use_golden, capsys):
    run = write_run(tmp_path / "bm25.trec", {i: 1 + i % 3 for i in range(N)})
    assert evalset("score", str(run), "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["version"] == "gs-00000000000000aa"
    assert report["n_queries"] == N
    main = report["slices"]["main"]
    # Ranks cycle 1, 2, 3 over i; main holds the 36 items with i % 10 != 0 (12 at rank 1).
    assert main["recall@1"] == pytest.approx(12 / 36)
    assert main["mrr@10"] == pytest.approx((12 * 1 + 12 * 1 / 2 + 12 * 1 / 3) / 36)
    assert {
        "ndcg@10",
        "sufficient@5",
        "supporting_only@5",
        "judged@10",
        "gold_recall@1",
        "recall@5_judged",
    } <= set(main)
    assert "recall@1" not in report["slices"]["underspecified"]
    assert report["counts"]["main"]["n_scored"] == 36
    assert report["warnings"] == []
    assert {"tie_break", "missing_queries", "unjudged", "zero_relevant", "averaging"} <= set(
        report["conventions"]
    )


def test_score_human_report(tmp_path: Path, use_golden, capsys):
    run = write_run(tmp_path / "bm25.trec", {i: 1 for i in range(N)}, fingerprint=None)
    assert evalset("score", str(run)) == 0
    out = capsys.readouterr().out
    assert out.index("warnings") < out.index("main: n=36 scored of 36")  # warnings come first
    assert "no corpus fingerprint" in out
    assert "underspecified: n=4" in out and "conventions" in out and "tie_break" in out


def test_stale_golden_set_exits_2(tmp_path: Path, use_golden, capsys):
    use_golden(golden_set(age_days=40))
    run = write_run(tmp_path / "r.trec", {i: 1 for i in range(N)})
    assert evalset("score", str(run), "--json") == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "REFUSED" in captured.err and "40 days old" in captured.err
    assert evalset("score", str(run), "--json", "--max-age-days", "60") == 0
    capsys.readouterr()
    assert evalset("score", str(run), "--json", "--allow-stale") == 0
    assert json.loads(capsys.readouterr().out)["warnings"][0].startswith("STALE")


def test_too_many_empty_queries_exit_2(tmp_path: Path, use_golden, capsys):
    run = write_run(tmp_path / "r.trec", {i: 1 for i in range(N - 3)})  # 3 of 40 = 7.5% empty
    assert evalset("score", str(run)) == 2
    assert "3 of 40 golden queries (7.5%)" in capsys.readouterr().err
    assert evalset("score", str(run), "--json", "--allow-empty") == 0
    report = json.loads(capsys.readouterr().out)
    assert any(w.startswith("EMPTY") for w in report["warnings"])
    # The empty queries count as zero: 37 of 40 hits overall; main has 36 items, 3 of them empty.
    assert report["slices"]["main"]["recall@1"] == pytest.approx(33 / 36)
    run = write_run(tmp_path / "r2.trec", {i: 1 for i in range(N - 2)})  # 5%: within the limit
    assert evalset("score", str(run), "--json") == 0
    assert "count as zero" in json.loads(capsys.readouterr().out)["warnings"][0]


def test_corpus_warnings(tmp_path: Path, use_golden, capsys):
    run = write_run(
        tmp_path / "r.trec", {i: 1 for i in range(N)}, fingerprint="fp-newer", pages=1100
    )
    assert evalset("score", str(run), "--json") == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert warnings[0].startswith("CORPUS CHANGED") and warnings[1].startswith("CORPUS GROWN")
    assert (
        evalset(
            "score", str(run), "--json", "--corpus-fingerprint", CORPUS_FP, "--corpus-pages", "1000"
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["warnings"] == []


def test_compare(tmp_path: Path, use_golden, capsys):
    a = write_run(tmp_path / "a.trec", {i: 1 + i % 5 for i in range(N)})
    b = write_run(tmp_path / "b.trec", {i: 1 for i in range(N)}, fingerprint="fp-other")
    assert evalset("compare", str(a), str(b), "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["warnings"][0].startswith("DIFFERENT CORPORA")
    main = report["slices"]["main"]
    assert main["mrr@10"]["verdict"] == "better" and main["mrr@10"]["delta"] > 0
    assert main["recall@5"]["verdict"] == "indistinguishable"  # gold in the top 5 for both
    assert 0 <= main["sufficient@1"]["mcnemar_p"] < 0.05
    assert evalset("compare", str(a), str(b)) == 0
    out = capsys.readouterr().out
    assert "DIFFERENT CORPORA" in out and "better" in out and "B − A" in out


def test_compare_guards_and_input_errors(tmp_path: Path, use_golden, capsys):
    a = write_run(tmp_path / "a.trec", {i: 1 for i in range(N)})
    half = write_run(tmp_path / "half.trec", {i: 1 for i in range(N // 2)})
    assert evalset("compare", str(a), str(half)) == 2
    assert "REFUSED" in capsys.readouterr().err
    assert evalset("compare", str(a), str(a), "--resamples", "500") == 2
    assert evalset("score", str(tmp_path / "absent.trec")) == 1
    assert "does not exist" in capsys.readouterr().err


def test_score_against_a_published_golden_set(tmp_path: Path, capsys):
    """End to end through the real reader: publish a small version, score a run against it."""
    from evalset_pipeline.core.golden import publish
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline_tests.core.golden import golden_synth as synth

    data = tmp_path / "data"
    result = publish.publish_golden_set(DataPaths(data), synth.make_draft(data, n_items=6))
    draft = synth.make_draft(data, n_items=6)
    items = draft.items.to_pylist()
    lines = ["# corpus_fingerprint: corpus-fp-1", "# corpus_pages: 8"]
    for it in items:  # gold first, then one unjudged page
        lines += [
            f"{it['item_id']} Q0 {it['gold_unit_id']} 1 2.0 e2e",
            f"{it['item_id']} Q0 other:p9 2 1.0 e2e",
        ]
    run = tmp_path / "e2e.trec"
    run.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert evalset("score", str(run), "--data-dir", str(data), "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["version"] == result.version_id
    assert report["warnings"] == []
    assert report["slices"]["main"]["sufficient@1"] == 1.0
    assert report["slices"]["main"]["judged@3"] == pytest.approx(1 / 3)
    assert (
        evalset("score", str(run), "--data-dir", str(data), "--golden", "gs-ffffffffffffffff") == 1
    )
