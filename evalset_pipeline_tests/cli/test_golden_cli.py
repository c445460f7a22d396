"""`evalset golden list | show | diff | export` against a data dir with two published versions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from evalset_pipeline.cli import golden as golden_cli
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline_tests.core.exports.export_fixtures import write_page_tables
from evalset_pipeline_tests.core.golden.golden_synth import make_draft


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="evalset")
    golden_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["golden", *argv])
    return args.func(args)


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, str]:
    d = tmp_path / "data"
    a = publish_golden_set(DataPaths(d), make_draft(d, n_items=5))
    b = publish_golden_set(DataPaths(d), make_draft(d, n_items=6, variant=1))
    monkeypatch.setenv("EVALSET_DATA_DIR", str(d))  # the default --data-dir
    return d, a.version_id, b.version_id


def test_list_and_show(data, capsys):
    d, a, b = data
    assert run("list", "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["version_id"], r["seq"], r["is_latest"]) for r in rows] == [
        (a, 1, False),
        (b, 2, True),
    ]
    assert run("list") == 0
    assert b in capsys.readouterr().out
    assert run("show", "--json") == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["version_id"] == b and shown["items"] == 6 and shown["info"]["parent_version"] == a
    assert run("show", a[:7], "--data-dir", str(d)) == 0
    out = capsys.readouterr().out
    assert a in out and "funnel" in out


def test_diff(data, capsys):
    _, a, b = data
    assert run("diff", a, b, "--json") == 0
    diff = json.loads(capsys.readouterr().out)
    assert [r["item_id"] for r in diff["added"]] == ["it-0005"]
    assert [c["item_id"] for c in diff["changed"]] == ["it-0000"] and "question" in diff["changed"][
        0
    ]["fields"]
    assert run("diff", a, "latest") == 0
    out = capsys.readouterr().out
    assert "1 added" in out and "1 changed" in out and "question" in out


def test_export_formats(data, tmp_path: Path, capsys):
    d, a, _ = data
    # No page tables in this data dir: the whole-corpus default says why and names the way out.
    assert run("export", "--format", "beir", "--out", str(tmp_path / "beir"), "--version", a) == 1
    assert "--referenced-only" in capsys.readouterr().err
    assert (
        run(
            "export",
            "--format",
            "beir",
            "--out",
            str(tmp_path / "beir"),
            "--version",
            a,
            "--referenced-only",
        )
        == 0
    )
    assert json.loads((tmp_path / "beir" / "golden_set.json").read_text())["version_id"] == a
    assert "relevance binary" in capsys.readouterr().out
    assert (tmp_path / "beir" / "qrels" / "test.tsv").exists() and (
        tmp_path / "beir" / "README.md"
    ).exists()
    write_page_tables(d, n_pages=10)
    assert (
        run(
            "export",
            "--format",
            "vidore",
            "--out",
            str(tmp_path / "vidore"),
            "--gain",
            "graded",
            "--json",
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert (
        summary["corpus"] == 10
        and summary["relevance"] == "graded"
        and summary["corpus_scope"] == "build"
    )
    assert (tmp_path / "vidore" / "corpus" / "corpus-00000-of-00001.parquet").exists()
    assert run("export", "--format", "mteb", "--out", str(tmp_path / "mteb")) == 0
    assert (tmp_path / "mteb" / "qrels" / "underspecified-00000-of-00001.parquet").exists()
    assert run("export", "--format", "jsonl", "--out", str(tmp_path / "jsonl")) == 0
    assert len((tmp_path / "jsonl" / "golden.jsonl").read_text().splitlines()) == 6
    capsys.readouterr()
    assert run("export", "--format", "jsonl", "--out", str(tmp_path / "jsonl")) == 1
    assert "not empty" in capsys.readouterr().err


def test_errors_are_one_line(data, capsys):
    d, a, _ = data
    assert run("show", "gs-0000000000000000") == 1
    err = capsys.readouterr().err
    assert "not found" in err and a in err
    assert run("show", "../../etc/passwd") == 1
    assert "not 'latest' or a version id" in capsys.readouterr().err
    assert run("list", "--data-dir", str(d / "nowhere")) == 0


def test_registered_in_main_parser():
    from evalset_pipeline.cli import main

    parser = main.build_parser()
    assert parser.parse_args(["golden", "show", "latest"]).golden_command == "show"
