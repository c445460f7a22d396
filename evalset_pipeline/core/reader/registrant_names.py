"""Does a name on a question or a page name the page's registrant? Under any of its names: a filer
renamed between two filings is asked about under either (`PageContext.aliases`)."""

from __future__ import annotations

from collections.abc import Callable

from rapidfuzz import fuzz

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.reader.row_labels import norm_words

__all__ = ["ENTITY_MATCH", "names_registrant"]

# Spelling noise ("Inc" / "Inc.", a dropped comma) is the same name; another word is not.
ENTITY_MATCH = 90.0


def names_registrant(
    name: str,
    context: PageContext | None,
    scorer: Callable[[str, str], float] = fuzz.ratio,
) -> bool:
    """`name` names the registrant of the page's document, or one of its other names. `scorer`
    compares two normalised names (a row label that adds words to the name: `token_set_ratio`)."""
    if not name or context is None:
        return False
    wanted = norm_words(name)
    return any(scorer(wanted, norm_words(n)) >= ENTITY_MATCH for n in context.names)
