"""The sample and test kit: a synthetic corpus of filings drawn from a seed (several companies,
quarters and languages, with the truth of every page), the demo input of `evalset build` and the
oracle of the tests.

It is scaffolding, not product: `core/` never imports it (import-linter contract); the console,
the benchmarks and the tests do.
"""
