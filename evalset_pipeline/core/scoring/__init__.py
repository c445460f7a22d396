"""Scoring retrieval runs against a golden set (see docs/scoring.md).

runs.py         read TREC / JSONL / Parquet runs and the corpus metadata they carry
qrels.py        judgments of a golden version, indexed for array lookups
metrics.py      every metric at every cutoff, per query, vectorised over a rank matrix
conventions.py  the declared conventions (tie-break, unjudged, zero-relevant, ...) and constants
guards.py       when the bench refuses to measure (stale golden set, empty queries) or warns
compare.py      paired comparison: BCa bootstrap intervals, exact McNemar, verdicts
report.py       slice means, the JSON report and the rich tables
"""
