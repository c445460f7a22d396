"""The schedule and the corpus sensor, evaluated the way the daemon does, on a folder that changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import pytest

from evalset_pipeline.core.checks.corpus_state import current_corpus_fingerprint, decide_rebuild
from evalset_pipeline.core.corpus.documents import scan_corpus
from evalset_pipeline.definitions import defs
from evalset_pipeline.defs.resources import PipelineSettings
from evalset_pipeline.defs.schedules import build_refresh_schedule
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus


@pytest.fixture()
def corpus(tmp_path) -> Path:
    out = tmp_path / "corpus"
    generate_sample_corpus(out, entities=1, periods=2)
    (out / "notes.txt").write_text("not a pdf")
    (out / "acme_group" / "broken.pdf").write_bytes(b"")  # rejected, still part of the fingerprint
    return out


def _pdfs(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.pdf") if p.stat().st_size)


class Sensor:
    """Evaluates `corpus_changed` tick after tick, carrying the cursor like the daemon does."""

    def __init__(self, corpus: Path, data_dir: Path):
        self.sensor = defs.resolve_sensor_def("corpus_changed")
        self.settings = PipelineSettings(data_dir=str(data_dir), corpus_dir=str(corpus))
        self.cursor: str | None = None

    def tick(self) -> list[dg.RunRequest]:
        with dg.build_sensor_context(
            cursor=self.cursor, resources={"settings": self.settings}
        ) as context:
            data = self.sensor.evaluate_tick(context)
        self.cursor = data.cursor
        self.reported = [
            (e.asset_key.to_user_string(), e.tags.get("dagster/data_version"))
            for e in data.asset_events or []
        ]
        return list(data.run_requests or [])


def test_the_fingerprint_is_the_one_documents_records_and_only_changed_files_are_rehashed(
    corpus, tmp_path, monkeypatch
):
    cache = tmp_path / "cache.json"
    assert current_corpus_fingerprint(corpus, cache) == scan_corpus(corpus).fingerprint
    # Second call: every file's (size, mtime) is unchanged, so nothing is read again.
    import evalset_pipeline.core.checks.corpus_state as state

    hashed: list[Path] = []
    real = state.sha256_file
    monkeypatch.setattr(state, "sha256_file", lambda p: hashed.append(Path(p)) or real(p))
    assert current_corpus_fingerprint(corpus, cache) == scan_corpus(corpus).fingerprint
    assert hashed == []
    changed = _pdfs(corpus)[0]
    changed.write_bytes(changed.read_bytes() + b"\n%% appended\n")
    assert current_corpus_fingerprint(corpus, cache) == scan_corpus(corpus).fingerprint
    assert hashed == [changed]


def test_sensor_requests_one_run_per_change_and_none_when_unchanged(corpus, tmp_path):
    sensor = Sensor(corpus, tmp_path / "data")
    first = sensor.tick()  # no golden set yet: build one
    assert len(first) == 1 and first[0].tags["evalset/trigger"] == "corpus_changed"
    assert sensor.cursor == scan_corpus(corpus).fingerprint
    from evalset_pipeline.core.checks.corpus_state import sidecar_fingerprint

    # The UI marks documents stale, and page_metadata when the instance holds another sidecar version
    # (here no instance: the sidecar is always reported with the PDFs).
    assert sensor.reported == [
        ("corpus_files", sensor.cursor),
        ("corpus_sidecar", sidecar_fingerprint(corpus)),
    ]
    assert sensor.tick() == [] and sensor.tick() == []  # unchanged: nothing, cursor kept
    assert sensor.reported == []

    pdfs = _pdfs(corpus)
    steps = {
        "add one": lambda: shutil.copy(pdfs[0], corpus / "acme_group" / "copy.pdf"),
        "add three at once": lambda: [
            shutil.copy(p, corpus / f"extra_{i}.pdf") for i, p in enumerate(pdfs[:3])
        ],
        "change one": lambda: pdfs[1].write_bytes(pdfs[1].read_bytes() + b"\n%% edited\n"),
        "remove two": lambda: [(corpus / f"extra_{i}.pdf").unlink() for i in range(2)],
        "rename one": lambda: (corpus / "extra_2.pdf").rename(corpus / "renamed.pdf"),
    }
    for what, change in steps.items():
        before = sensor.cursor
        change()
        requests = sensor.tick()
        assert len(requests) == 1, what
        assert sensor.cursor == scan_corpus(corpus).fingerprint != before, what
        assert requests[0].tags["evalset/corpus_fingerprint"] == sensor.cursor[:16]
        assert sensor.tick() == [], what
    (corpus / "more notes.txt").write_text("still not a pdf")
    assert sensor.tick() == []  # only PDFs count


def test_a_new_sensor_compares_with_what_the_latest_golden_set_was_built_from():
    fp = "f" * 64
    assert not decide_rebuild(None, fp, fp).rebuild  # switched on with an up-to-date golden set
    assert decide_rebuild(None, fp, "e" * 64).rebuild
    assert decide_rebuild(None, fp, None).rebuild
    assert decide_rebuild("e" * 64, fp, fp).rebuild  # the cursor wins once there is one
    assert decide_rebuild(fp, fp, None).cursor == fp


def test_schedule_requests_a_full_rebuild_and_its_cron_is_configurable(monkeypatch):
    schedule = defs.resolve_schedule_def("golden_set_refresh")
    with dg.build_schedule_context(scheduled_execution_time=None) as context:
        data = schedule.evaluate_tick(context)
    assert len(data.run_requests) == 1
    assert data.run_requests[0].tags["evalset/trigger"] == "schedule"
    assert defs.resolve_job_def(schedule.job_name).tags["dagster/max_runtime"]

    monkeypatch.setenv("EVALSET_REFRESH_CRON", "*/30 * * * *")
    monkeypatch.setenv("EVALSET_REFRESH_TIMEZONE", "Asia/Seoul")
    custom = build_refresh_schedule()
    assert custom.cron_schedule == "*/30 * * * *" and custom.execution_timezone == "Asia/Seoul"
    assert build_refresh_schedule("15 1 * * 1").cron_schedule == "15 1 * * 1"


def test_a_setting_leaves_baseline_scores_out_of_scheduled_refreshes():
    skipping = build_refresh_schedule(skip_baseline=True)
    with dg.build_schedule_context(scheduled_execution_time=None) as context:
        request = skipping.evaluate_tick(context).run_requests[0]
    selected = {k.to_user_string() for k in request.asset_selection}
    assert "baseline_scores" not in selected and {"documents", "golden_set"} <= selected
    with dg.build_schedule_context(scheduled_execution_time=None) as context:
        assert (
            build_refresh_schedule(skip_baseline=False)
            .evaluate_tick(context)
            .run_requests[0]
            .asset_selection
            is None
        )
