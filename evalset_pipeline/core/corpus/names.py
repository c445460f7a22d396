"""Which of a document's identical files names it: the most plausible name, by a general rule.

A corpus often holds the same bytes twice: "report.pdf" and "Copy of report.pdf", "report (2).pdf",
an editor's lock file "~$report.pdf", a "backup" folder. The document is one (identified by its
content), and its path is what a person reads in every table and export, so the name chosen must
not be the junk one merely because it sorts first. Rule, in order: a name (or folder) that does
not look like a copy, a temporary or a backup file; then the shortest path; then alphabetical.
Every other name is kept as an alias (`DocumentRecord.paths`), so a benchmark naming any of them
still finds the document.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

# A word "copy", a trailing "(2)", a leading "~" or "." (lock and hidden files), a trailing "~",
# and backup / temp words: the marks file managers and editors leave, in no particular language.
_JUNK = re.compile(r"\bcopy\b|\(\d+\)\s*$|^[~.]|~$|\b(?:backup|bak|tmp|temp)\b", re.IGNORECASE)


def looks_like_a_copy(path: str) -> bool:
    """Does any part of a corpus-relative path look like a copy, temporary or backup name?"""
    parts = PurePosixPath(path).parts
    stems = [*parts[:-1], PurePosixPath(parts[-1]).stem] if parts else []
    return any(_JUNK.search(s) for s in stems)


def plausibility(path: str) -> tuple[bool, int, str]:
    """Sort key: the most plausible name of identical files first."""
    return (looks_like_a_copy(path), len(path), path)
