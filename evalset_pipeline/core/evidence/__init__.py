"""The corpus as evidence: every figure every page prints (`index`), the pool of every page that
might answer an item (`pools`), and whether a version judged them all (`completeness`)."""
