"""`documents`: scan the corpus root, hash every PDF, keep the rejected ones with their reason."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

import pyarrow as pa

from evalset_pipeline.core.atomic import write_text_atomic
from evalset_pipeline.core.corpus.documents import (
    OUTSIDE_ROOT,
    DocumentRecord,
    RejectedDocument,
    scan_corpus,
)
from evalset_pipeline.core.corpus.outline import OutlineEntry
from evalset_pipeline.core.golden.model import CorpusManifest
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.tables import read_rows, write_rows

DOCUMENTS = pa.schema(
    [
        ("document_sha256", pa.string()),
        ("path", pa.string()),
        ("paths", pa.list_(pa.string())),
        ("page_count", pa.int64()),
        ("bytes", pa.int64()),
        ("title", pa.string()),
        ("author", pa.string()),
        (
            "outline",
            pa.list_(
                pa.struct(
                    [
                        ("level", pa.int64()),
                        ("title", pa.string()),
                        ("page", pa.int64()),
                        ("top", pa.float64()),
                    ]
                )
            ),
        ),
    ]
)
REJECTED = pa.schema(
    [
        ("path", pa.string()),
        ("sha256", pa.string()),
        ("reason", pa.string()),
        ("stage", pa.string()),
    ]
)
MANIFEST = "corpus_manifest.json"


class EmptyCorpus(RuntimeError):
    """The corpus root holds no PDF at all (not even a rejected one)."""


class EveryDocumentRejected(RuntimeError):
    """Every PDF under the corpus root was rejected: there is nothing to build from."""


def build_documents(ctx: StageContext) -> StageResult:
    scan = scan_corpus(ctx.corpus_dir, follow_symlinks=ctx.config.follow_symlinks)
    # Both said here, not as "no main-slice item survived" four stages later.
    if not scan.documents and not scan.rejected:
        raise EmptyCorpus(
            f"no PDFs under {ctx.corpus_dir} (looked for *.pdf in every sub-folder); nothing to build"
        )
    write_rows(ctx.paths.table("documents"), (asdict(d) for d in scan.documents), DOCUMENTS)
    write_rows(ctx.paths.table("rejected_documents"), (asdict(r) for r in scan.rejected), REJECTED)
    m = scan.manifest()
    write_text_atomic(
        ctx.paths.table_file(MANIFEST),
        json.dumps(
            {
                "fingerprint": m.fingerprint,
                "built_at": m.built_at.isoformat(),
                "documents": m.documents,
                "pages": m.pages,
                "corpus_dir": str(ctx.corpus_dir),
            }
        ),
    )
    for r in scan.rejected:
        ctx.log.warning("rejected %s: %s", r.path, r.reason)
    if (
        not scan.documents
    ):  # after the tables are written: `evalset documents --rejected` lists them
        raise EveryDocumentRejected(every_document_rejected(ctx.corpus_dir, scan.rejected))
    return StageResult(
        {
            "documents": len(scan.documents),
            "pages": scan.pages,
            "rejected": len(scan.rejected),
            "corpus_fingerprint": scan.fingerprint,
        },
        version=scan.fingerprint,
        rows=[asdict(r) for r in scan.rejected],
    )


def every_document_rejected(corpus_dir: Path, rejected: list[RejectedDocument]) -> str:
    """One paragraph: all were rejected, the commonest reason with an example, and what to do."""
    reasons = Counter(r.reason for r in rejected)
    top, n = reasons.most_common(1)[0]
    example = next(r.path for r in rejected if r.reason == top)
    others = len(reasons) - 1
    text = (
        f"every PDF under {corpus_dir} was rejected ({len(rejected)} rejected, none kept), so "
        f"there is nothing to build from. The commonest reason, for {n}, is: {top} (e.g. {example})"
        + (f"; {others} other reason{'s' if others > 1 else ''}" if others else "")
        + "."
    )
    if top == OUTSIDE_ROOT:
        text += (
            " A folder of links to files kept elsewhere is read only when asked: build with "
            "--follow-symlinks (the follow_symlinks setting in the launchpad); folder links are "
            "never followed."
        )
    return text + " `evalset documents --rejected` lists every file with its reason."


def load_documents(ctx: StageContext) -> list[DocumentRecord]:
    return [
        DocumentRecord(
            **{
                **r,
                "paths": tuple(r["paths"]),
                # a table written before outlines were read has none
                "outline": tuple(OutlineEntry(**e) for e in r.get("outline") or ()),
            }
        )
        for r in read_rows(ctx.paths.table("documents"), producer="documents")
    ]


def load_rejected(ctx: StageContext) -> list[RejectedDocument]:
    return [
        RejectedDocument(**r)
        for r in read_rows(ctx.paths.table("rejected_documents"), producer="documents")
    ]


def load_manifest(ctx: StageContext) -> CorpusManifest:
    path = ctx.paths.table_file(MANIFEST)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: materialize the `documents` asset first")
    d = json.loads(path.read_text())
    return CorpusManifest(
        d["fingerprint"], datetime.fromisoformat(d["built_at"]), d["documents"], d["pages"]
    )
