"""A table's lead-in sentence as the heading it stands for.

Filings often introduce a table with a sentence instead of a heading ("Operating expenses include
share-based compensation expense as follows:", "Consumer loans, excluding credit card loans,
consist of the following:"), and the table reader keeps that sentence as the table's subject or
a row's section. A question asked "under" the whole sentence reads as table debris; the subject
of the sentence (before its verb) is the heading a person would say: "Operating expenses",
"Consumer loans, excluding credit card loans".
"""

from __future__ import annotations

import re

# The verbs that turn a heading into a lead-in sentence: what a table "includes", "consists of",
# "is as follows", or how its total moved ("decreased reflecting ...").
_LEAD_IN_VERB = re.compile(
    r"[\s,]+(?:includes?|included|consists?|consisted|comprises?|comprised|are|were|is|was|"
    r"increased|decreased|reflects?|reflected|reflecting|represents?|represented|totall?ed|"
    r"amounted|as\s+follows)\b",
    re.I,
)


# A table carried over a page break repeats its heading with a mark a question does not say.
_CONTINUED = re.compile(r"\s*(?:\((?:continued|cont'?d\.?)\)|[-–—,]\s*continued)\s*$", re.I)


def heading_of(section: str) -> str:
    """The noun phrase a lead-in sentence opens with ("Operating expenses include … as follows"
    -> "Operating expenses"), without a page break's "(continued)"; a section that is already a
    heading comes back unchanged."""
    section = _CONTINUED.sub("", section)
    m = _LEAD_IN_VERB.search(section)
    if m is None:
        return section
    head = section[: m.start()].strip(" ,;:")
    # A verb in the first word leaves no heading ("Are ..."): keep the section as printed.
    return head if re.search(r"[^\W\d_]{3,}", head) else section
