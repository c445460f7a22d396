"""`evalset build`'s flags are generated from the settings core declares: each shows its help,
and the run config a build passes is the one the declaration produces."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalset_pipeline.cli.build import BUILD_FLAGS, EMBEDDER_FLAGS, _run_config
from evalset_pipeline.cli.common import VLM_FLAGS, vlm_config
from evalset_pipeline.cli.main import build_parser, main
from evalset_pipeline.core.backends.factory import VLMConfig
from evalset_pipeline.core.index.embeddings import EmbedderSpec
from evalset_pipeline.core.pipeline.settings import BuildSettings
from evalset_pipeline.core.settings import settings_of, to_flat
from evalset_pipeline.core.vlm.cache import Prices
from evalset_pipeline.samplekit.sample_corpus import UNANSWERABLE_EVERY


def _flag(name: str, flags: dict[str, str]) -> str:
    return flags.get(name, "--" + name.replace("_", "-"))


def test_help_shows_every_setting_with_its_help(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # one line per flag: help text is not wrapped
    with pytest.raises(SystemExit) as exc:
        main(["build", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    lines: dict[str, str] = {}  # flag -> its usage and help, continuation lines joined
    flag = ""
    for line in out.split("options:")[1].splitlines():
        if line.startswith("  -"):
            flag = line.split()[0]
            lines[flag] = line
        elif flag:
            lines[flag] += " " + line.strip()
    sources = ((BuildSettings, BUILD_FLAGS), (VLMConfig, VLM_FLAGS), (EmbedderSpec, EMBEDDER_FLAGS))
    for source, flags in sources:
        for s in settings_of(source):
            flag = _flag(s.name, flags)
            assert flag in lines, flag
            assert s.help in lines[flag], flag
    assert "(comma-separated; default: period,metric,entity)" in lines["--axes"]
    assert "{slice,drop}" in lines["--underspecified"] and "(default: 80)" in lines["--sample-size"]


def test_flag_names_are_unchanged():
    args = build_parser().parse_args(
        "build --corpus c --data-dir d --sample-size 5 --seed 3 --negatives-per-axis 1 "
        "--axes period,revision --workers 2 --baseline-retrievers bm25,text --vlm openai "
        "--model m --base-url http://x --api-key-env K --max-in-flight 4 "
        "--input-usd-per-mtok 1.5 --output-usd-per-mtok 3 --embedder clip".split()
    )
    resources = _run_config(args, Path("d"), Path("c"))["resources"]
    settings = resources["settings"]["config"]
    assert resources["embedder"]["config"]["model"] == "clip"
    assert settings["sample_size"] == 5 and settings["seed"] == 3
    assert settings["negatives_per_axis"] == 1 and settings["workers"] == 2
    assert settings["axes"] == ["period", "revision"]
    assert settings["baseline_retrievers"] == ["bm25", "text"]
    assert vlm_config(args) == VLMConfig(
        "openai", "m", "http://x", "K", max_in_flight=4, prices=Prices(1.5, 3.0)
    )


def test_the_run_config_is_the_one_the_declaration_produces():
    args = build_parser().parse_args(["build"])
    config = _run_config(args, Path("data/x"), Path("corpus/y"))
    expected = BuildSettings(data_dir="data/x")
    assert config["resources"]["settings"]["config"] == {
        **to_flat(expected),
        "corpus_dir": "corpus/y",
    }
    vlm = {k: v for k, v in to_flat(VLMConfig()).items() if v is not None}
    # no --corpus: the bundled sample, built with its own deliberately unanswerable questions
    assert config["resources"]["vlm"]["config"] == {**vlm, "unanswerable_every": UNANSWERABLE_EVERY}
    args = build_parser().parse_args(["build", "--corpus", "real"])
    assert _run_config(args, Path("d"), Path("real"))["resources"]["vlm"]["config"] == vlm
    assert config["resources"]["embedder"]["config"] == to_flat(EmbedderSpec())

    args = build_parser().parse_args(
        "build --render-dpi 150 --max-pixels 1000 --max-rewrites 0 --underspecified drop".split()
    )
    settings = _run_config(args, Path("d"), Path("c"))["resources"]["settings"]["config"]
    assert (settings["render_dpi"], settings["max_pixels"]) == (150, 1000)
    assert (settings["max_rewrites"], settings["underspecified"]) == (0, "drop")
