"""The corpus every reader test resolves against: two documents, their unit ids as the renderer makes them."""

from __future__ import annotations

import pytest

from evalset_pipeline.core.review.regression import CorpusIndex

SHA_A, SHA_B = "a" * 64, "b" * 64


@pytest.fixture()
def index() -> tuple[CorpusIndex, set[str]]:
    """Two documents: reports/a.pdf (3 pages) and b.pdf (2 pages); unit ids as the renderer makes them."""
    docs = [
        {"document_sha256": SHA_A, "path": "reports/a.pdf", "page_count": 3, "paths": []},
        {"document_sha256": SHA_B, "path": "b.pdf", "page_count": 2, "paths": []},
    ]
    pages = [
        {
            "document_sha256": s,
            "document_path": p,
            "page_number": n,
            "unit_id": f"{s[:12]}-p{n:05d}",
        }
        for s, p, c in ((SHA_A, "reports/a.pdf", 3), (SHA_B, "b.pdf", 2))
        for n in range(1, c + 1)
    ]
    return CorpusIndex(docs, pages), {p["unit_id"] for p in pages}
