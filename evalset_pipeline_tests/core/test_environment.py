"""The EVALSET_* variables: declared once (core/environment.py), read only there, checked on read,
and the README table is the declaration's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalset_pipeline.core.environment import (
    EnvironmentSettings,
    env_name,
    environment,
    markdown_table,
)
from evalset_pipeline.core.settings import settings_of

PACKAGE = Path(__file__).resolve().parents[2] / "evalset_pipeline"
README = PACKAGE.parent / "README.md"
DECLARED = {env_name(s) for s in settings_of(EnvironmentSettings)}


def test_unset_or_empty_gives_every_default():
    assert environment({}) == EnvironmentSettings()
    assert environment({"EVALSET_MAX_CONCURRENT": " "}) == EnvironmentSettings()


def test_values_are_parsed_by_their_declared_type():
    env = environment(
        {
            "EVALSET_MAX_CONCURRENT": "4",
            "EVALSET_MAX_REJECTED_SHARE": "0.5",
            "EVALSET_REFRESH_SKIP_BASELINE": "true",
            "EVALSET_EXECUTOR": "k8s",
            "EVALSET_DATA_DIR": "/srv/evalset",
        }
    )
    assert (env.max_concurrent, env.max_rejected_share) == (4, 0.5)
    assert env.refresh_skip_baseline is True and env.executor == "k8s"
    assert env.data_dir == "/srv/evalset"
    assert environment({"EVALSET_REFRESH_SKIP_BASELINE": "0"}).refresh_skip_baseline is False


@pytest.mark.parametrize(
    "name, value",
    [
        ("EVALSET_MAX_CONCURRENT", "two"),
        ("EVALSET_EXECUTOR", "celery"),
        ("EVALSET_REFRESH_SKIP_BASELINE", "maybe"),
    ],
)
def test_a_value_that_cannot_be_used_names_its_variable(name, value):
    with pytest.raises(ValueError, match=f"{name}='{value}'"):
        environment({name: value})


def test_nothing_else_reads_an_evalset_variable_from_the_environment():
    reads = re.compile(r"(?:environ|getenv)\b[^\n]*EVALSET_")
    offenders = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if p.name != "environment.py" and reads.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_every_evalset_name_the_package_mentions_is_declared():
    mentioned = {
        m for p in PACKAGE.rglob("*.py") for m in re.findall(r"EVALSET_[A-Z_]+", p.read_text())
    }
    assert mentioned <= DECLARED, mentioned - DECLARED


def test_the_readme_table_is_generated_from_the_declaration():
    text = README.read_text(encoding="utf-8")
    begin, end = "<!-- environment table: begin -->\n", "\n<!-- environment table: end -->"
    table = text[text.index(begin) + len(begin) : text.index(end)]
    assert table == markdown_table()
