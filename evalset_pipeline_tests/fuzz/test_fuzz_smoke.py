"""Short fuzz runs of PDF ingest + render (the long run is `make fuzz`)."""

from __future__ import annotations

import functools
import os
import random
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalset_pipeline_tests.fuzz.fuzz_ingest import mutate, run_one, seed_pdfs


def test_mutation_loop_smoke_run(tmp_path):
    """The `make fuzz` loop for 6 s with a fixed seed, in a child process: a crash inside MuPDF
    would fail this test instead of taking pytest down."""
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "evalset_pipeline_tests.fuzz.fuzz_ingest",
            "--seconds",
            "6",
            "--seed",
            "11",
            "--crash-dir",
            str(tmp_path / "crashes"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert res.returncode == 0, (res.stdout + res.stderr)[-4000:]
    assert "no exception escaped" in res.stdout
    assert not (tmp_path / "crashes").exists()


@functools.lru_cache(maxsize=1)
def _seeds() -> tuple[bytes, ...]:
    return tuple(seed_pdfs())


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    which=st.integers(min_value=0, max_value=64),
    rounds=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_mutated_pdfs_never_escape_ingest(tmp_path, which, rounds, seed):
    """Hypothesis picks the seed PDF and the mutations (and shrinks a failure to a small case)."""
    seeds = _seeds()
    rng = random.Random(seed)
    data = seeds[which % len(seeds)]
    for _ in range(rounds):
        data = mutate(data, rng)
    documents, _, _ = run_one([data, seeds[0]], tmp_path / "w")
    assert documents >= 1  # the good file beside it is still taken
