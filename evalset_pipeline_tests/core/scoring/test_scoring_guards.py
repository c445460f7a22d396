"""The bench refuses to measure (stale golden set, empty queries) and warns (corpus changed)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from evalset_pipeline.core.scoring.guards import (
    MeasurementRefused,
    check_empty_queries,
    check_golden_age,
    corpus_warnings,
    run_pair_warnings,
)
from evalset_pipeline.core.scoring.runs import RunMeta

NOW = datetime(2025, 6, 30, 12, 0, tzinfo=UTC)
INFO = {"version_id": "gs-1", "corpus_fingerprint": "fp-gold", "corpus_pages": 1000}


def test_stale_golden_set_is_refused_unless_allowed():
    info = {**INFO, "created_at": NOW - timedelta(days=31)}
    with pytest.raises(MeasurementRefused, match=r"(?s)31 days old.*--allow-stale") as exc:
        check_golden_age(info, now=NOW)
    assert exc.value.exit_code == 2
    assert check_golden_age(info, now=NOW, max_age_days=45) == []
    (warning,) = check_golden_age(info, now=NOW, allow_stale=True)
    assert warning.startswith("STALE") and "--allow-stale" in warning


def test_fresh_golden_set_and_unknown_date():
    assert check_golden_age({**INFO, "created_at": NOW - timedelta(days=29.9)}, now=NOW) == []
    assert (
        check_golden_age({**INFO, "created_at": "2025-06-01T00:00:00"}, now=NOW) == []
    )  # naive = UTC
    (warning,) = check_golden_age(INFO, now=NOW)
    assert "no creation date" in warning


def test_empty_queries_refused_above_five_percent():
    n_results = np.array([10] * 94 + [0] * 6)  # 6% came back empty
    with pytest.raises(
        MeasurementRefused, match=r"(?s)6 of 100 golden queries \(6.0%\).*--allow-empty"
    ):
        check_empty_queries(n_results)
    (warning,) = check_empty_queries(n_results, allow_empty=True)
    assert warning.startswith("EMPTY")
    # 5% is still within the limit: scored, with the count on top.
    (warning,) = check_empty_queries(np.array([10] * 95 + [0] * 5))
    assert "5 of 100" in warning and "count as zero" in warning
    assert check_empty_queries(np.array([3, 1, 2])) == []


def test_corpus_fingerprint_and_size_warnings():
    assert corpus_warnings(INFO, RunMeta(corpus_fingerprint="fp-gold", corpus_pages=1040)) == []
    (changed,) = corpus_warnings(INFO, RunMeta(corpus_fingerprint="fp-other", corpus_pages=1000))
    assert changed.startswith("CORPUS CHANGED")
    (grown,) = corpus_warnings(INFO, RunMeta(corpus_fingerprint="fp-gold", corpus_pages=1060))
    assert grown.startswith("CORPUS GROWN") and "6.0%" in grown
    (shrunk,) = corpus_warnings(INFO, RunMeta(corpus_fingerprint="fp-gold", corpus_pages=900))
    assert shrunk.startswith("CORPUS SHRUNK") and "10.0%" in shrunk
    (unknown,) = corpus_warnings(INFO, RunMeta())
    assert "no corpus fingerprint" in unknown


def test_two_runs_on_different_corpora():
    (w,) = run_pair_warnings(
        RunMeta(corpus_fingerprint="a"), RunMeta(corpus_fingerprint="b"), "A", "B"
    )
    assert w.startswith("DIFFERENT CORPORA")
    assert (
        run_pair_warnings(
            RunMeta(corpus_fingerprint="a"), RunMeta(corpus_fingerprint="a"), "A", "B"
        )
        == []
    )
