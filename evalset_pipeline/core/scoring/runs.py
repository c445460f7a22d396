"""Reading retrieval runs (TREC, JSONL, Parquet) and the corpus metadata they carry.

A run is (query id, unit id, score) rows. Query ids are golden item_ids and unit ids are
unit_ids. The run's own rank column, if any, is ignored: order comes from the score and the
declared tie-break (conventions.py), so two files with the same scores always score the same.

Corpus metadata (which corpus the run was retrieved from) can travel:
  * TREC:    comment lines `# corpus_fingerprint: …`, `# corpus_pages: 12345`
  * JSONL:   a first line `{"_meta": {...}}`, or constant per-row columns
  * Parquet: schema metadata keys (or one JSON object under `evalset_run_meta`), or constant columns
  * any:     a sidecar `RUN.meta.json` next to the run file (the file's own metadata wins)
"""

from __future__ import annotations

import codecs
import io
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from evalset_pipeline.core.inputfile import (
    InputFileError,
    check_file,
    open_checked,
    parse_json_line,
    read_text,
)

QUERY_COLUMNS = ("qid", "query_id")
UNIT_COLUMNS = ("docid", "unit_id", "corpus_id")
SCORE_COLUMNS = ("score",)
META_KEYS = ("corpus_fingerprint", "corpus_pages", "corpus_documents", "run_name")
PARQUET_META_KEY = "evalset_run_meta"
_TREC_META_RE = re.compile(r"^#\s*([A-Za-z_][A-Za-z0-9_]*)\s*[:=]\s*(.*?)\s*$")
_TREC_COMMENT_RE = re.compile(rb"^[ \t]*#[^\n]*", re.MULTILINE)


class RunFormatError(ValueError):
    """The run file cannot be read as a run; the message says what is wrong and where."""


@dataclass(frozen=True)
class RunMeta:
    """What the run says about the corpus it was retrieved from (all optional)."""

    corpus_fingerprint: str | None = None
    corpus_pages: int | None = None
    corpus_documents: int | None = None
    run_name: str | None = None

    def merged_over(self, other: RunMeta) -> RunMeta:
        """This metadata, with gaps filled from `other` (lower precedence)."""
        return RunMeta(
            corpus_fingerprint=self.corpus_fingerprint or other.corpus_fingerprint,
            corpus_pages=self.corpus_pages if self.corpus_pages is not None else other.corpus_pages,
            corpus_documents=(
                self.corpus_documents
                if self.corpus_documents is not None
                else other.corpus_documents
            ),
            run_name=self.run_name or other.run_name,
        )

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in META_KEYS}


@dataclass(frozen=True)
class Run:
    """Run rows as parallel columns. Duplicates are allowed here; the scorer resolves them."""

    query_ids: pa.Array  # string
    unit_ids: pa.Array  # string
    scores: np.ndarray  # float64, always finite (inf, 1e400 and NaN are refused with their rows)
    meta: RunMeta = field(default_factory=RunMeta)
    source: str = ""

    def __len__(self) -> int:
        return len(self.scores)

    @property
    def name(self) -> str:
        return self.meta.run_name or (Path(self.source).name if self.source else "run")

    def with_meta(self, meta: RunMeta) -> Run:
        return replace(self, meta=meta)


def _as_string_array(values: Any, what: str) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    arr = values if isinstance(values, pa.Array) else pa.array(values)
    if not pa.types.is_string(arr.type):
        # Integer query ids (common in JSONL) and dictionary/large strings become plain strings.
        try:
            arr = pc.cast(arr, pa.string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise RunFormatError(
                f"{what} column of type {arr.type} cannot be read as text"
            ) from exc
    if arr.null_count:
        raise RunFormatError(f"{arr.null_count} row(s) with an empty {what}")
    return arr


def run_from_columns(
    query_ids: Any,
    unit_ids: Any,
    scores: Any,
    meta: RunMeta | None = None,
    source: str = "",
) -> Run:
    """A run from in-memory columns (lists, numpy or pyarrow arrays)."""
    q = _as_string_array(query_ids, "query id")
    u = _as_string_array(unit_ids, "unit id")
    if isinstance(scores, (pa.Array, pa.ChunkedArray)):
        if scores.null_count:
            raise RunFormatError(f"{scores.null_count} row(s) without a score")
        s = np.asarray(scores.to_numpy(zero_copy_only=False), dtype=np.float64)
    else:
        s = np.asarray(scores, dtype=np.float64)
    if not (len(q) == len(u) == len(s)):
        raise RunFormatError(
            f"column lengths differ: {len(q)} query ids, {len(u)} unit ids, {len(s)} scores"
        )
    bad = np.flatnonzero(~np.isfinite(s))
    if len(bad):
        # NaN has no place in an order, and inf (or 1e400, read as inf) ties every such row at the
        # top whatever the retriever meant: sorting them somewhere silently would change every metric.
        raise RunFormatError(
            f"{len(bad)} row(s) have a score that is not a finite number: "
            + _rows_named(q, u, bad, [repr(float(s[i])) for i in bad[:3]])
        )
    return Run(query_ids=q, unit_ids=u, scores=s, meta=meta or RunMeta(), source=source)


def _rows_named(q: pa.Array, u: pa.Array, rows: np.ndarray, values: list[str]) -> str:
    """The first few bad rows as `row N (query Q, unit U): value`, so a user can find them."""
    shown = "; ".join(
        f"row {int(i) + 1} (query {q[int(i)].as_py()}, unit {u[int(i)].as_py()}): {v}"
        for i, v in zip(rows[:3], values, strict=False)
    )
    return shown + (f"; and {len(rows) - 3} more" if len(rows) > 3 else "")


_INTEGER_RE = r"^[+-]?[0-9]+$"


def check_ranks(ranks: Any, query_ids: pa.Array, unit_ids: pa.Array, where: str) -> None:
    """The run's rank column is ignored for ordering, but a rank that is not an integer ("first",
    2.5) says the file is not what it claims to be: refused, naming the rows."""
    if isinstance(ranks, pa.ChunkedArray):
        ranks = ranks.combine_chunks()
    arr = ranks if isinstance(ranks, pa.Array) else pa.array(ranks)
    if pa.types.is_integer(arr.type):
        return
    if pa.types.is_floating(arr.type):
        values = arr.to_numpy(zero_copy_only=False)
        ok = np.isfinite(values) & (np.floor(values) == values)
    else:
        text = pc.cast(arr, pa.string()) if not pa.types.is_string(arr.type) else arr
        ok = pc.fill_null(pc.match_substring_regex(text, _INTEGER_RE), False).to_numpy(
            zero_copy_only=False
        )
    bad = np.flatnonzero(~np.asarray(ok, dtype=bool))
    if len(bad):
        raise RunFormatError(
            f"{where}: {len(bad)} row(s) have a rank that is not an integer: "
            + _rows_named(query_ids, unit_ids, bad, [repr(arr[int(i)].as_py()) for i in bad[:3]])
        )


# --- metadata helpers --------------------------------------------------------------------------


def _int_or_none(value: Any, key: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        f = float(value)
    except (TypeError, ValueError) as exc:
        raise RunFormatError(f"run metadata {key}={value!r} is not a number") from exc
    if not math.isfinite(f) or f != int(f) or f < 0:
        raise RunFormatError(f"run metadata {key}={value!r} is not a page/document count")
    return int(f)


def meta_from_mapping(data: Mapping[str, Any]) -> RunMeta:
    """RunMeta from a dict; unknown keys are ignored so runs may carry more than we read."""
    fp = data.get("corpus_fingerprint")
    name = data.get("run_name") or data.get("tag") or data.get("name")
    return RunMeta(
        corpus_fingerprint=str(fp) if fp not in (None, "") else None,
        corpus_pages=_int_or_none(data.get("corpus_pages"), "corpus_pages"),
        corpus_documents=_int_or_none(data.get("corpus_documents"), "corpus_documents"),
        run_name=str(name) if name not in (None, "") else None,
    )


def sidecar_path(path: Path) -> Path:
    return path.with_name(path.name + ".meta.json")


def read_sidecar(path: Path) -> RunMeta:
    side = sidecar_path(path)
    if not side.is_file():
        return RunMeta()
    try:
        data, why = parse_json_line(read_text(side, "run metadata file"))
    except InputFileError as exc:
        raise RunFormatError(str(exc)) from None
    if why:
        raise RunFormatError(f"{side}: {why}")
    if not isinstance(data, dict):
        raise RunFormatError(f"{side}: expected a JSON object")
    return meta_from_mapping(data)


def _constant_columns(table: pa.Table, where: str) -> dict[str, Any]:
    """Metadata carried as per-row columns: accepted only when constant across the run."""
    out: dict[str, Any] = {}
    for key in META_KEYS:
        if key not in table.column_names:
            continue
        distinct = pc.unique(table.column(key).combine_chunks().drop_null()).to_pylist()
        if len(distinct) > 1:
            raise RunFormatError(
                f"{where}: column {key} takes {len(distinct)} values; one run, one corpus"
            )
        if distinct:
            out[key] = distinct[0]
    return out


def _pick(table: pa.Table, names: Sequence[str], what: str, where: str) -> pa.ChunkedArray:
    found = [n for n in names if n in table.column_names]
    if not found:
        raise RunFormatError(
            f"{where}: no {what} column (expected one of {', '.join(names)}); has {table.column_names}"
        )
    if len(found) > 1:
        raise RunFormatError(f"{where}: ambiguous {what} columns {found}; keep one")
    return table.column(found[0])


def _run_from_table(table: pa.Table, meta: RunMeta, source: str) -> Run:
    q = _pick(table, QUERY_COLUMNS, "query id", source)
    u = _pick(table, UNIT_COLUMNS, "unit id", source)
    if "rank" in table.column_names:
        try:
            check_ranks(
                table.column("rank"),
                _as_string_array(q, "query id"),
                _as_string_array(u, "unit id"),
                source,
            )
        except pa.ArrowException as exc:
            raise RunFormatError(f"{source}: rank column cannot be read ({exc})") from exc
    if "score" in table.column_names:
        s = table.column("score")
        if not (pa.types.is_integer(s.type) or pa.types.is_floating(s.type)):
            raise RunFormatError(f"{source}: score column has type {s.type}, expected numbers")
    elif "rank" in table.column_names:
        # No scores, only ranks: rank 1 is best, so score = -rank keeps the run's order.
        s = pc.negate(pc.cast(table.column("rank"), pa.float64()))
    else:
        raise RunFormatError(f"{source}: no score column (nor a rank column to derive one from)")
    try:
        return run_from_columns(q, u, s.combine_chunks(), meta=meta, source=source)
    except RunFormatError as exc:
        raise RunFormatError(f"{source}: {exc}") from exc


# --- readers -----------------------------------------------------------------------------------


_TREC_COLUMNS = ["qid", "iter", "docid", "rank", "score", "tag"]


def _trec_fast(raw: bytes) -> tuple[pa.Array, pa.Array, np.ndarray, str | None] | None:
    """Single-space separated TREC lines through Arrow's CSV reader (C++, several times faster
    than splitting in Python). None when the file needs the general whitespace path: tabs,
    repeated spaces, ragged or non-numeric lines."""
    # A tab, a doubled, leading or trailing space would become an extra or a merged column.
    # (Substring tests, not a regex: they run at memory speed on a large file.)
    irregular = (b"\t", b"  ", b"\n ", b" \n", b" \r\n")
    if (
        not raw.strip()
        or raw.startswith(b" ")
        or raw.endswith(b" ")
        or any(p in raw for p in irregular)
    ):
        return None
    string_cols = {c: pa.string() for c in _TREC_COLUMNS}
    try:
        table = pa_csv.read_csv(
            io.BytesIO(raw),
            read_options=pa_csv.ReadOptions(column_names=_TREC_COLUMNS),
            parse_options=pa_csv.ParseOptions(
                delimiter=" ", quote_char=False, ignore_empty_lines=True
            ),
            convert_options=pa_csv.ConvertOptions(
                column_types={**string_cols, "score": pa.float64()}
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if table.num_rows == 0 or any(table.column(c).null_count for c in _TREC_COLUMNS):
        return None
    tag = table.column("tag")[0].as_py()
    scores = table.column("score").combine_chunks().to_numpy(zero_copy_only=False)
    qids, docids = table.column("qid").combine_chunks(), table.column("docid").combine_chunks()
    check_ranks(table.column("rank"), qids, docids, "")
    return qids, docids, scores, tag


def _trec_general(text: str, path: Path) -> tuple[pa.Array, pa.Array, np.ndarray, str | None]:
    """Any whitespace; names the first line that does not have six fields."""
    tokens = text.split()
    if len(tokens) % 6 or len(set(tokens[1::6])) > 1:
        # Ragged lines misalign the second column, which writers fill with one constant ("Q0").
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip() and len(line.split()) != 6:
                raise RunFormatError(
                    f"{path}:{n}: expected 6 fields (qid Q0 docid rank score tag), got {line!r}"
                )
    try:
        scores = pc.cast(pa.array(tokens[4::6], pa.string()), pa.float64()).to_numpy(
            zero_copy_only=False
        )
    except pa.ArrowInvalid as exc:
        raise RunFormatError(f"{path}: non-numeric score ({exc})") from exc
    tag = tokens[5] if tokens else None
    qids, docids = pa.array(tokens[0::6], pa.string()), pa.array(tokens[2::6], pa.string())
    check_ranks(pa.array(tokens[3::6], pa.string()), qids, docids, "")
    return qids, docids, scores, tag


def _text_bytes(path: Path) -> bytes:
    """The run file as UTF-8 bytes: a UTF-16 file (with its BOM) is converted, a UTF-8 BOM
    dropped; anything that is not text is one error naming the file and the first bad byte
    (binary garbage used to end in "'utf-8' codec can't decode")."""
    with open_checked(path, "run file") as f:
        raw = f.read()
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return raw.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError as exc:
            raise RunFormatError(
                f"{path}: not a run file: its UTF-16 text breaks at byte {exc.start}"
            ) from None
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise RunFormatError(
            f"{path}:{line}: not a run file: byte 0x{raw[exc.start]:02x} is not UTF-8 text (a run is "
            "TREC or JSONL text in UTF-8 / UTF-16 with a BOM, or Parquet)"
        ) from None
    return raw


def read_trec_run(path: str | Path) -> Run:
    """`qid Q0 docid rank score tag`, whitespace separated; `#` lines are comments or metadata."""
    path = Path(path)
    raw = _text_bytes(path)
    meta: dict[str, Any] = {}
    if b"#" in raw and _TREC_COMMENT_RE.search(raw):
        for m in _TREC_COMMENT_RE.finditer(raw):
            found = _TREC_META_RE.match(m.group(0).decode("utf-8", "replace").strip())
            if found and found.group(1) in META_KEYS:
                meta[found.group(1)] = found.group(2)
        raw = _TREC_COMMENT_RE.sub(b"", raw)  # newlines stay, so line numbers in errors stay right
    try:
        parsed = _trec_fast(raw) or _trec_general(raw.decode("utf-8"), path)
    except RunFormatError as exc:
        raise RunFormatError(f"{path}{exc}" if str(exc).startswith(":") else str(exc)) from None
    query_ids, unit_ids, scores, tag = parsed
    if "run_name" not in meta and tag:
        meta["run_name"] = tag  # the tag column names the run
    try:
        return run_from_columns(
            query_ids,
            unit_ids,
            scores,
            meta=meta_from_mapping(meta).merged_over(read_sidecar(path)),
            source=str(path),
        )
    except RunFormatError as exc:
        raise RunFormatError(f"{path}: {exc}") from exc


def _read_jsonl_python(raw: bytes, path: Path) -> pa.Table:
    records: list[dict[str, Any]] = []
    for n, line in enumerate(raw.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        record, why = parse_json_line(line)
        if why:
            raise RunFormatError(f"{path}:{n}: {why}")
        if not isinstance(record, dict):
            raise RunFormatError(f"{path}:{n}: expected a JSON object per line")
        for key in QUERY_COLUMNS + UNIT_COLUMNS + ("corpus_fingerprint", "run_name"):
            if key in record and record[key] is not None:
                record[key] = str(record[key])
        records.append(record)
    try:
        return pa.Table.from_pylist(records)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise RunFormatError(f"{path}: inconsistent columns ({exc})") from exc


def read_jsonl_run(path: str | Path) -> Run:
    path = Path(path)
    raw = _text_bytes(path)
    meta: dict[str, Any] = {}
    first_end = raw.find(b"\n")
    first = raw[: first_end if first_end >= 0 else len(raw)].strip()
    if first.startswith(b"{") and b'"_meta"' in first:
        head, why = parse_json_line(first.decode("utf-8"))
        if why:
            raise RunFormatError(f"{path}:1: {why}")
        if isinstance(head, dict) and set(head) == {"_meta"} and isinstance(head["_meta"], dict):
            meta.update(head["_meta"])
            raw = raw[first_end + 1 :] if first_end >= 0 else b""
    if not raw.strip():
        table = pa.table(
            {
                "qid": pa.array([], pa.string()),
                "docid": pa.array([], pa.string()),
                "score": pa.array([], pa.float64()),
            }
        )
    else:
        try:
            table = pa_json.read_json(io.BytesIO(raw))
        except pa.ArrowInvalid:
            # Arrow's reader wants one type per column; ids written sometimes as numbers and
            # sometimes as strings are legal JSON, so fall back to the (slower) Python parser.
            table = _read_jsonl_python(raw, path)
    meta.update({k: v for k, v in _constant_columns(table, str(path)).items() if k not in meta})
    return _run_from_table(
        table, meta_from_mapping(meta).merged_over(read_sidecar(path)), str(path)
    )


def read_parquet_run(path: str | Path) -> Run:
    path = Path(path)
    check_file(path, "run file")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise RunFormatError(f"{path} is not a readable parquet run ({why})") from None
    meta: dict[str, Any] = {}
    schema_meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
    if PARQUET_META_KEY in schema_meta:
        try:
            meta.update(json.loads(schema_meta[PARQUET_META_KEY]))
        except json.JSONDecodeError as exc:
            raise RunFormatError(f"{path}: schema metadata {PARQUET_META_KEY} is not JSON") from exc
    meta.update({k: v for k, v in schema_meta.items() if k in META_KEYS and k not in meta})
    meta.update({k: v for k, v in _constant_columns(table, str(path)).items() if k not in meta})
    return _run_from_table(
        table, meta_from_mapping(meta).merged_over(read_sidecar(path)), str(path)
    )


def detect_format(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".parquet", ".pq"):
        return "parquet"
    if suffixes and suffixes[-1] in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    # No telling suffix: Parquet files start with a magic number, JSON lines with a brace.
    with path.open("rb") as fh:
        head = fh.read(4)
    if head == b"PAR1":
        return "parquet"
    if head.lstrip().startswith(b"{"):
        return "jsonl"
    return "trec"


def read_run(path: str | Path, fmt: str | None = None) -> Run:
    """Read a run file in any supported format (detected from the suffix or the content)."""
    path = Path(path)
    try:
        check_file(path, "run file")  # a FIFO would block, a directory or a loop would traceback
    except InputFileError as exc:
        raise RunFormatError(str(exc)) from None
    fmt = fmt or detect_format(path)
    readers = {"trec": read_trec_run, "jsonl": read_jsonl_run, "parquet": read_parquet_run}
    if fmt not in readers:
        raise RunFormatError(f"unknown run format {fmt!r}; expected one of {sorted(readers)}")
    return readers[fmt](path)


def declared_order(query_ids: pa.Array, unit_ids: pa.Array, scores: np.ndarray) -> np.ndarray:
    """Row order: query id, then score descending, then unit id ascending (the declared tie-break)."""
    table = pa.table({"q": query_ids, "s": scores, "u": unit_ids})
    keys = [("q", "ascending"), ("s", "descending"), ("u", "ascending")]
    return pc.sort_indices(table, sort_keys=keys).to_numpy()


def write_trec_run(run: Run, path: str | Path, tag: str = "run") -> None:
    """Write a run as TREC lines (ranks follow the declared order); metadata as comment lines."""
    order = declared_order(run.query_ids, run.unit_ids, run.scores)
    q = run.query_ids.take(pa.array(order)).to_pylist()
    u = run.unit_ids.take(pa.array(order)).to_pylist()
    s = run.scores[order].tolist()
    lines = [
        f"# {k}: {v}" for k, v in run.meta.to_dict().items() if v is not None and k != "run_name"
    ]
    rank, prev = 0, None
    for qi, ui, si in zip(q, u, s, strict=False):
        rank = rank + 1 if qi == prev else 1
        prev = qi
        lines.append(f"{qi} Q0 {ui} {rank} {si!r} {tag}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
