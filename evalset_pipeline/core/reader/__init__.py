"""The offline page reader: rule-based English and Korean reading of a page's tables and prose
(table geometry and semantics, period columns, Korean filings), the offline `textlayer` question
writer / judge built on it, and the answer comparison every judge uses.

Built on `pagetext/`. It never imports the model client (`vlm/`) and the client never imports it
(import-linter contract); both implement the interface in `judging/`.
"""
