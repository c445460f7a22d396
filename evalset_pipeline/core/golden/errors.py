"""Errors a golden-set reader or publisher can see, each saying what to do next."""

from __future__ import annotations


class GoldenSetError(Exception):
    """Base class for golden-set storage errors."""


class GoldenSetNotFound(GoldenSetError, LookupError):
    """The requested version does not exist (the message lists the ones that do)."""


class GoldenSetCorrupt(GoldenSetError):
    """A snapshot file does not match the checksum its manifest recorded."""


class GoldenSetLocked(GoldenSetError, TimeoutError):
    """The publish lock or the DuckDB warehouse stayed locked longer than the allowed wait."""


class InvalidDraft(GoldenSetError, ValueError):
    """A draft breaks the table contract; publishing it would freeze bad data into a version."""


class InvalidVersionId(GoldenSetError, ValueError):
    """The text given as a version is not 'latest', a version id, or an id prefix."""
