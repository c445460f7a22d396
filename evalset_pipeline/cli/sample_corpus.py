"""`evalset sample-corpus`: write the deterministic synthetic corpus (PDFs + metadata.csv)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sample-corpus", help="Generate the synthetic sample corpus (deterministic)")
    p.add_argument(
        "--out", type=Path, required=True, help="Folder to write the PDFs and metadata.csv into"
    )
    p.add_argument(
        "--entities", type=int, default=5, help="Number of entities (first 4 English, 5th Korean)"
    )
    p.add_argument("--periods", type=int, default=4, help="Consecutive quarters ending 2024-Q3")
    p.add_argument("--seed", type=int, default=7, help="Seed of the value generator")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported here so `evalset --help` stays fast (PyMuPDF and numpy load only when needed).
    from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

    if args.entities < 1 or args.periods < 1:
        raise SystemExit("--entities and --periods must be at least 1")
    summary = generate_sample_corpus(
        args.out, entities=args.entities, periods=args.periods, seed=args.seed
    )
    print(
        f"sample corpus: {summary.documents} documents, {summary.pages} pages, "
        f"{summary.total_bytes / 1e6:.2f} MB -> {summary.root} (sidecar {summary.metadata_csv.name})"
    )
    return 0
