"""Every model call, cached and on the ledger.

A call is keyed by (backend, model, prompt hash, task, image hash, question, extra input), so a
rebuild with nothing changed makes zero calls, and changing a prompt file re-asks only that task.
Each call's tokens, latency and estimated cost are kept; golden sets sum them into provenance.
Calls go to the backend in chunks and each chunk is stored before the next one starts: a run that
dies on call 900 of 1000 resumes at call 900.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from evalset_pipeline.core.environment import environment
from evalset_pipeline.core.hashing import canonical_json, sha256_text
from evalset_pipeline.core.judging.base import (
    BatchError,
    CallUsage,
    Judgment,
    LabelResult,
    PageView,
    Qualifiers,
    VLMBackend,
    WrittenQuestion,
)
from evalset_pipeline.core.redact import redact
from evalset_pipeline.core.settings import setting

CHUNK = 64
T = TypeVar("T")

_DDL = """
CREATE TABLE IF NOT EXISTS model_calls (
    key VARCHAR PRIMARY KEY,
    backend VARCHAR, model VARCHAR, task VARCHAR, prompt_hash VARCHAR,
    image_hash VARCHAR, question VARCHAR, response_json VARCHAR,
    prompt_tokens BIGINT, completion_tokens BIGINT, latency_s DOUBLE, cost_usd DOUBLE,
    created_at TIMESTAMPTZ
)
"""
# Calls that failed for good (bad output after one repair, refusal, endpoint down): on the ledger
# with the raw reply, never in `model_calls`, so a rerun asks again.
_FAILURES_DDL = """
CREATE TABLE IF NOT EXISTS model_call_failures (
    key VARCHAR, backend VARCHAR, model VARCHAR, task VARCHAR, prompt_hash VARCHAR,
    image_hash VARCHAR, question VARCHAR, error VARCHAR, raw_text VARCHAR,
    prompt_tokens BIGINT, completion_tokens BIGINT, latency_s DOUBLE, cost_usd DOUBLE,
    created_at TIMESTAMPTZ
)
"""


@dataclass(frozen=True)
class Prices:
    """USD per million tokens; 0 for local models."""

    input_per_mtok: float = setting(0.0, help="USD per million prompt tokens, for the cost ledger")
    output_per_mtok: float = setting(
        0.0, help="USD per million completion tokens, for the cost ledger"
    )

    def cost(self, usage: CallUsage | None) -> float:
        if usage is None:
            return 0.0
        return (
            usage.prompt_tokens * self.input_per_mtok
            + usage.completion_tokens * self.output_per_mtok
        ) / 1e6


@dataclass
class CallStats:
    """What this run asked of the model: calls made (cache misses) and served from cache."""

    calls: dict[str, int] = field(default_factory=dict)
    cache_hits: dict[str, int] = field(default_factory=dict)
    prompt_tokens: int = 0  # spent by this run's calls
    completion_tokens: int = 0
    cost_usd: float = 0.0
    # What every result used (cached or not) originally cost: the price of the set itself.
    total_prompt_tokens: int = 0
    total_completion_tokens: int = 0
    total_cost_usd: float = 0.0

    def merge(self, other: CallStats) -> CallStats:
        out = CallStats()
        for name in ("calls", "cache_hits"):
            a, b = getattr(self, name), getattr(other, name)
            setattr(out, name, {k: a.get(k, 0) + b.get(k, 0) for k in sorted(set(a) | set(b))})
        for name in (
            "prompt_tokens",
            "completion_tokens",
            "cost_usd",
            "total_prompt_tokens",
            "total_completion_tokens",
            "total_cost_usd",
        ):
            setattr(out, name, getattr(self, name) + getattr(other, name))
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CallStats:
        return cls(**d)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class ModelCallCacheLocked(RuntimeError):
    """Another process kept the model-call cache open for longer than the allowed wait."""


def _connect(path: Path, wait_s: float) -> duckdb.DuckDBPyConnection:
    """Open the cache read-write, waiting up to `wait_s` while another process holds it (DuckDB
    admits one writing process per file); then a documented error, not a raw IOException."""
    deadline = time.monotonic() + wait_s
    delay = 0.05
    while True:
        try:
            return duckdb.connect(str(path))
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise
            if time.monotonic() >= deadline:
                holder = re.search(r"PID (\d+)", str(exc))
                who = f"process {holder.group(1)}" if holder else "another process"
                raise ModelCallCacheLocked(
                    f"the model-call cache {path} is in use by {who} (waited {wait_s:.0f}s). Only one process may "
                    f"write it: wait for that build or SQL session to finish (read the ledger with "
                    f"duckdb -readonly only when no build runs), then build again. Nothing was lost."
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


class CallCache:
    """The DuckDB-backed cache and ledger. One connection per process; writes are short."""

    def __init__(self, path: str | Path, wait_s: float | None = None):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        wait = environment().cache_wait_s if wait_s is None else wait_s
        self._con = _connect(self.path, wait)
        self._con.execute(_DDL)
        self._con.execute(_FAILURES_DDL)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._con.close()

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple[dict, int, int, float]]:
        """key -> (response, prompt tokens, completion tokens, cost) for the keys already answered."""
        if not keys:
            return {}
        with self._lock:
            rows = self._con.execute(
                "SELECT key, response_json, prompt_tokens, completion_tokens, cost_usd FROM model_calls "
                "WHERE key IN (SELECT unnest(?))",
                [list(keys)],
            ).fetchall()
        return {k: (json.loads(v), pt, ct, c) for k, v, pt, ct, c in rows}

    def put_many(self, rows: Sequence[dict[str, Any]]) -> None:
        if not rows:
            return
        cols = [
            "key",
            "backend",
            "model",
            "task",
            "prompt_hash",
            "image_hash",
            "question",
            "response_json",
            "prompt_tokens",
            "completion_tokens",
            "latency_s",
            "cost_usd",
            "created_at",
        ]
        with self._lock:
            self._insert("INSERT OR IGNORE INTO model_calls", cols, rows)

    def put_failures(self, rows: Sequence[dict[str, Any]]) -> None:
        if not rows:
            return
        cols = [
            "key",
            "backend",
            "model",
            "task",
            "prompt_hash",
            "image_hash",
            "question",
            "error",
            "raw_text",
            "prompt_tokens",
            "completion_tokens",
            "latency_s",
            "cost_usd",
            "created_at",
        ]
        with self._lock:
            self._insert("INSERT INTO model_call_failures", cols, rows)

    def _insert(self, verb: str, cols: list[str], rows: Sequence[dict[str, Any]]) -> None:
        """One multi-row statement: executemany commits row by row (~10 ms a row), this ~0.5 ms."""
        one = f"({', '.join('?' * len(cols))})"
        # Scrubbed again on the way out: nothing secret-shaped is ever persisted, whichever backend.
        self._con.execute(
            f"{verb} ({', '.join(cols)}) VALUES {', '.join([one] * len(rows))}",
            [redact(v) if isinstance(v, str) else v for r in rows for v in (r[c] for c in cols)],
        )

    def ledger(self) -> dict[str, Any]:
        with self._lock:
            row = self._con.execute(
                "SELECT count(*), coalesce(sum(prompt_tokens),0), coalesce(sum(completion_tokens),0), "
                "coalesce(sum(cost_usd),0) FROM model_calls"
            ).fetchone()
        calls, prompt_tokens, completion_tokens, cost = (
            row if row is not None else (0, 0, 0, 0)
        )  # count(*): one row
        return {
            "calls": calls,
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "cost_usd": cost,
        }


def _encode(result: Any) -> dict:
    if isinstance(result, str):
        return {"text": result}
    if result is None:
        return {"none": True}
    d = asdict(result)
    d.pop("usage", None)
    return d


class CachedBackend:
    """Same interface as the backend it wraps; answers from the cache when it can."""

    def __init__(
        self,
        backend: VLMBackend,
        cache: CallCache,
        prices: Prices = Prices(),
        chunk: int = CHUNK,
        on_progress: Callable[[str, int], None] | None = None,
    ):
        self.backend = backend
        self.cache = cache
        self.prices = prices
        self.chunk = chunk
        self.stats = CallStats()
        self.on_progress = on_progress
        self.name, self.model = backend.name, backend.model

    def prompt_hash(self, task: str) -> str:
        return self.backend.prompt_hash(task)

    def _key(self, task: str, image_hash: str, question: str, extra: Any) -> str:
        return sha256_text(
            canonical_json(
                [
                    self.backend.name,
                    self.backend.model,
                    self.backend.prompt_hash(task),
                    task,
                    image_hash,
                    question,
                    extra,
                ]
            )
        )

    def _run(
        self,
        task: str,
        inputs: Sequence[tuple[str, str, Any]],
        call: Callable[[list[int]], list[Any]],
        decode: Callable[[dict], T],
    ) -> list[T]:
        """inputs: (image_hash, question, extra) per request; call(indices) asks the backend."""
        keys = [self._key(task, *i) for i in inputs]
        cached = self.cache.get_many(keys)
        out: list[Any] = [None] * len(inputs)
        todo = []
        first: dict[str, int] = {}  # a request repeated within the batch is asked once
        for i, key in enumerate(keys):
            if key in cached:
                response, pt, ct, cost = cached[key]
                out[i] = decode(response)
                self.stats.total_prompt_tokens += pt
                self.stats.total_completion_tokens += ct
                self.stats.total_cost_usd += cost
            elif key not in first:
                first[key] = i
                todo.append(i)
        self.stats.cache_hits[task] = self.stats.cache_hits.get(task, 0) + len(inputs) - len(todo)
        for start in range(0, len(todo), self.chunk):
            batch = todo[start : start + self.chunk]
            failed: BatchError | None = None
            try:
                done = list(zip(batch, call(batch), strict=False))
            except BatchError as err:  # keep what completed, so a rerun asks only for the rest
                failed = err
                done = [(batch[j], r) for j, r in sorted(err.results.items())]
            rows = []
            now = datetime.now(UTC)
            for i, result in done:
                out[i] = result
                usage = getattr(result, "usage", None)
                cost = self.prices.cost(usage)
                self.stats.prompt_tokens += usage.prompt_tokens if usage else 0
                self.stats.completion_tokens += usage.completion_tokens if usage else 0
                self.stats.cost_usd += cost
                self.stats.total_prompt_tokens += usage.prompt_tokens if usage else 0
                self.stats.total_completion_tokens += usage.completion_tokens if usage else 0
                self.stats.total_cost_usd += cost
                image_hash, question, _ = inputs[i]
                rows.append(
                    {
                        "key": keys[i],
                        "backend": self.backend.name,
                        "model": self.backend.model,
                        "task": task,
                        "prompt_hash": self.backend.prompt_hash(task),
                        "image_hash": image_hash,
                        "question": question,
                        "response_json": canonical_json(_encode(result)),
                        "prompt_tokens": usage.prompt_tokens if usage else 0,
                        "completion_tokens": usage.completion_tokens if usage else 0,
                        "latency_s": usage.latency_s if usage else 0.0,
                        "cost_usd": cost,
                        "created_at": now,
                    }
                )
            self.cache.put_many(rows)
            self.stats.calls[task] = self.stats.calls.get(task, 0) + len(done)
            if failed is not None:
                self.cache.put_failures(
                    [
                        self._failure_row(
                            task, keys[batch[f.index]], inputs[batch[f.index]], f, now
                        )
                        for f in failed.failures
                    ]
                )
                raise failed
            if self.on_progress:
                self.on_progress(task, len(batch))
        for i, key in enumerate(keys):
            if (
                key not in cached and first[key] != i
            ):  # a repeat: same result, counted like a cache hit
                out[i] = out[first[key]]
                usage = getattr(out[i], "usage", None)
                self.stats.total_prompt_tokens += usage.prompt_tokens if usage else 0
                self.stats.total_completion_tokens += usage.completion_tokens if usage else 0
                self.stats.total_cost_usd += self.prices.cost(usage)
        return out

    def _failure_row(
        self, task: str, key: str, inp: tuple[str, str, Any], f: Any, now: datetime
    ) -> dict[str, Any]:
        u = f.usage
        return {
            "key": key,
            "backend": self.backend.name,
            "model": self.backend.model,
            "task": task,
            "prompt_hash": self.backend.prompt_hash(task),
            "image_hash": inp[0],
            "question": inp[1],
            "error": f.error,
            "raw_text": f.raw,
            "prompt_tokens": u.prompt_tokens if u else 0,
            "completion_tokens": u.completion_tokens if u else 0,
            "latency_s": u.latency_s if u else 0.0,
            "cost_usd": self.prices.cost(u),
            "created_at": now,
        }

    def write_questions(self, pages: Sequence[PageView]) -> list[WrittenQuestion | None]:
        return self._run(
            "write",
            [(p.image_hash, "", None) for p in pages],
            lambda idx: self.backend.write_questions([pages[i] for i in idx]),
            lambda d: None if d.get("none") else WrittenQuestion(**d),
        )

    def judge(self, pairs: Sequence[tuple[str, PageView]]) -> list[Judgment]:
        return self._run(
            "judge",
            [(p.image_hash, q, p.context_key()) for q, p in pairs],
            lambda idx: self.backend.judge([pairs[i] for i in idx]),
            lambda d: Judgment(**d),
        )

    def label(self, triples: Sequence[tuple[str, str, PageView]]) -> list[LabelResult]:
        return self._run(
            "label",
            [
                (p.image_hash, q, a if p.context is None else [a, p.context_key()])
                for q, a, p in triples
            ],
            lambda idx: self.backend.label([triples[i] for i in idx]),
            lambda d: LabelResult(**d),
        )

    def qualify(self, items: Sequence[tuple[str, Qualifiers]]) -> list[str]:
        return self._run(
            "qualify",
            [("", q, {"values": quals.values, "language": quals.language}) for q, quals in items],
            lambda idx: self.backend.qualify([items[i] for i in idx]),
            lambda d: d["text"],
        )
