"""People in the loop: review packets, human labels, adjudication, agreement, the regression slice.

packets.py     stratified, seeded review packets (HTML + sheet per annotator slot)
sheets.py      sheet import (all-or-nothing), adjudication sheets and single adjudications
store.py       append-only Parquet batches under data/reviews/, resolved at read time
agreement.py   confusion matrices, per-class P/R/F1, macro-F1, kappa, Wilson and bootstrap intervals
split.py       development (prompt exemplars) vs held-out (judge validation) split by item hash
report.py      model-human agreement per judge (ledger) and inter-annotator agreement
apply.py       the golden_set hook: human labels over model labels, agreement into provenance
regression.py  data/regressions/*.jsonl records -> slice `regression` items
"""
