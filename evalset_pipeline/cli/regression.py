"""`evalset regression add | list`: the regression slice's records (data/regressions/*.jsonl).

`add` checks the document and page against the last corpus scan (the build's working tables)
when there is one, else against the corpus folder itself, and stores the document as its path
under the corpus root so the record's item id is stable. The next `evalset build` turns every
record into an item of slice `regression` (see core/review/regression.py).

Exit codes: 0 added (or already there); 1 the document or page is not in the corpus (nothing
written; --force writes anyway) or bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evalset_pipeline.cli.common import add_data_dir
from evalset_pipeline.core.paths import DataPaths, default_corpus_dir


def _check_in_folder(corpus: Path, document: str, page: int) -> tuple[str | None, str]:
    """(normalised document path, "") or (None, why) using the PDF itself."""
    root = corpus.resolve()
    path = (root / document).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None, f"{document} is not a file under {corpus}"
    try:
        import pymupdf

        with pymupdf.open(path) as doc:
            count = doc.page_count
    except Exception as exc:  # noqa: BLE001 - any unreadable PDF is a "no"
        return None, f"{document} cannot be opened as a PDF ({exc})"
    if page > count:
        return None, f"{document} has {count} pages, not {page}"
    return path.relative_to(root).as_posix(), ""


def cmd_add(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.review.regression import (
        RegressionError,
        append_record,
        corpus_index,
        new_record,
        read_records,
    )

    paths = DataPaths.at(args.data_dir)
    document, checked = args.document, ""
    index = corpus_index(paths)
    if index.units:
        sha, why = index.document(args.document)
        unit, why = index.resolve(args.document, args.page) if sha else (None, why)
        if unit is None and not args.force:
            print(
                f"evalset regression add: {why} (last corpus scan under {paths.root}); nothing written "
                f"(--force to record it anyway)",
                file=sys.stderr,
            )
            return 1
        if sha:
            document = index.primary.get(sha, args.document)
        checked = f"page {args.page} of {document} is {unit}" if unit else f"unchecked: {why}"
    else:
        corpus = Path(args.corpus) if args.corpus else default_corpus_dir()
        if corpus.is_dir():
            found, why = _check_in_folder(corpus, args.document, args.page)
            if found is None and not args.force:
                print(
                    f"evalset regression add: {why}; nothing written (--force to record it anyway)",
                    file=sys.stderr,
                )
                return 1
            document = found or args.document
            checked = f"checked against {corpus}" if found else f"unchecked: {why}"
        else:
            checked = "unchecked: no corpus scan and no corpus folder to look in"
    try:
        record = new_record(
            args.question,
            document,
            args.page,
            args.note or "",
            args.date or "",
            args.answer or "",
            args.language or "",
        )
    except RegressionError as exc:
        print(f"evalset regression add: {exc}", file=sys.stderr)
        return 1
    existing, _ = read_records(paths.regressions)
    if any(r.item_id == record.item_id for r in existing):
        msg = {"item_id": record.item_id, "added": False, "reason": "already recorded"}
        print(
            json.dumps(msg)
            if args.json
            else f"already recorded as {record.item_id}; nothing written"
        )
        return 0
    try:
        path = append_record(paths.regressions, record, args.file)
    except RegressionError as exc:
        print(f"evalset regression add: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(
            json.dumps(
                {
                    "item_id": record.item_id,
                    "added": True,
                    "file": str(path),
                    "check": checked,
                    "record": record.to_json(),
                },
                ensure_ascii=False,
            )
        )
    else:
        print(
            f"recorded {record.item_id} in {path} ({checked}); the next `evalset build` adds it to slice regression"
        )
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.review.regression import corpus_index, regression_items

    paths = DataPaths.at(args.data_dir)
    _, rows, summary = regression_items(paths.regressions, corpus_index(paths))
    if args.json:
        print(json.dumps({"summary": summary, "records": rows}, indent=2, ensure_ascii=False))
        return 0
    if not rows:
        print(f"no regression records under {paths.regressions}")
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table(
        title=f"regression records in {paths.regressions} (status against the last corpus scan)"
    )
    for col in ("item", "status", "question", "document", "page", "note / reason"):
        t.add_column(col, overflow="fold")
    for r in rows:
        t.add_row(
            r["item_id"],
            r["status"],
            r["question"],
            r["document"],
            str(r["page"]),
            r["reason"] if r["status"] != "added" else r["note"],
        )
    Console().print(t)
    return 0


def register(subparsers: Any) -> None:
    common = argparse.ArgumentParser(add_help=False)
    add_data_dir(common)
    reg = subparsers.add_parser(
        "regression", help="record production failures for the regression slice"
    )
    sub = reg.add_subparsers(dest="regression_command", required=True)

    p = sub.add_parser(
        "add",
        parents=[common],
        help="append a failure: the user's question and the page that answers it",
    )
    p.add_argument("--question", required=True, help="the question exactly as the user asked it")
    p.add_argument(
        "--document",
        required=True,
        help="the PDF: path under the corpus root, file name, or sha256",
    )
    p.add_argument(
        "--page", required=True, type=int, help="1-based page that should have been retrieved"
    )
    p.add_argument("--note", default="", help="e.g. the ticket and what came back instead")
    p.add_argument("--date", default="", help="when it happened (default today)")
    p.add_argument("--answer", default="", help="the expected answer, if known")
    p.add_argument(
        "--language", default="", help="ISO 639-1 code (default: guessed from the question)"
    )
    p.add_argument(
        "--corpus", default=None, help="corpus folder to check against when no build has scanned it"
    )
    p.add_argument(
        "--file",
        default="regressions.jsonl",
        help="file under data/regressions/ (default regressions.jsonl)",
    )
    p.add_argument(
        "--force", action="store_true", help="record it even if the page is not in the corpus"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_add)

    p = sub.add_parser(
        "list", parents=[common], help="every record, with whether it resolves to a corpus page"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)
