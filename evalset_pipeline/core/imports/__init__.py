"""Import an external benchmark (BEIR folder, ViDoRe/MTEB parquet, FinanceBench-style JSONL) and harden it.

readers/   one module per format: rows -> `SourceItem`s, every bad row an `ImportIssue` with its line
resolve    gold references (document + 1-based page, or a corpus id) -> this corpus's units
harden     judge each item's gold pages and their one-axis siblings, classify, publish a golden version
report     `evalset report hardening`: sibling-answerable shares per axis, judge validation, before/after
"""
