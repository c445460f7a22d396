"""Visual templates: from metadata where the user gave one, else from clustering appearance."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True)
class TemplateAssignment:
    unit_id: str
    template_id: str
    source: str  # metadata | cluster | "" (unknown)


def assign_templates(
    unit_ids: Sequence[str], metadata_templates: Sequence[str], embeddings: np.ndarray
) -> list[TemplateAssignment]:
    """Metadata wins; pages without one are left unassigned until clustering fills them in."""
    return [
        TemplateAssignment(u, t, "metadata" if t else "")
        for u, t in zip(unit_ids, metadata_templates)
    ]
