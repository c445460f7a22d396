"""Who files a document, as an identity rather than a name: one filer under two names is one filer.

A registrant renames itself ("… Systems Incorporated" becomes "… Inc."), yet its later filings
print the same figures for the same rows, so a name is no identity. A cover prints one that is:
the number a regulator gave the filer, printed next to its label.

  sec-file   the SEC's "Commission File Number" (0-15175; 001-… and 1-… are one number)
  sec-cik    the SEC's Central Index Key, where a cover prints it
  irs-ein    the "I.R.S. Employer Identification No." or "I.R.S. ID" (12-3456789)
  kr-corp    a Korean filing's 법인등록번호 (110111-1234567)
  kr-biz     a Korean filing's 사업자등록번호 (123-45-67890)

Documents are one filer when their covers print a common identifier; documents that print none
are grouped by their name's key (`registrant.entity_key`) as before, and a name joins the filer
that prints it unless the two print different numbers of one kind (two registrants that share a
name). Every document then carries its filer's other names (`aliases`).
Nothing here knows a company or a regulator's form beyond its labels and number shapes.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from evalset_pipeline.core.metadata.facts_record import DocumentFacts
from evalset_pipeline.core.metadata.registrant import entity_key

__all__ = ["filer_groups", "filer_of_name", "read_filer_ids", "same_filer", "with_aliases"]

# label, the number's shape, how far after the label (characters) the number may be printed: a
# cover read out of order may put a column of labels before their values. A number printed just
# before its label (an EIN above "(I.R.S. Employer Identification No.)") is read too.
_IDS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    (
        "sec-file",
        # "number" may sit a line below, past the date a two-column cover prints between them
        re.compile(r"commission\s+file\b", re.I),
        re.compile(r"(?<![\d-])(\d{1,3})\s?-\s?(\d{3,6})(?![\d-])"),
    ),
    (
        "sec-cik",
        re.compile(r"\bCIK\b|central\s+index\s+key", re.I),
        re.compile(r"(?<![\d-])(\d{4,10})(?![\d-])"),
    ),
    (
        "irs-ein",
        re.compile(r"employer\s+identification|\bi\.\s?r\.\s?s\.\s+id\b", re.I),
        re.compile(r"(?<![\d-])(\d{2})-(\d{7})(?![\d-])"),
    ),
    (
        "kr-corp",
        re.compile(r"법\s*인\s*등\s*록\s*번\s*호"),
        re.compile(r"(?<!\d)(\d{6})-(\d{7})(?!\d)"),
    ),
    (
        "kr-biz",
        re.compile(r"사\s*업\s*자\s*등\s*록\s*번\s*호"),
        re.compile(r"(?<!\d)(\d{3})-(\d{2})-(\d{5})(?!\d)"),
    ),
)
_AFTER = 160  # a label's value is on its line or within the next couple of lines
_BEFORE = 120  # ... or, on a cover that prints values above their labels, on the line before
_COVER_PAGES = 3  # the cover and what a PDF puts before it (a wrapper page, a table of contents)


def _number(kind: str, groups: Sequence[str]) -> str:
    """One spelling per number: SEC file numbers lose their zero padding (001-11314 is 1-11314)."""
    if kind in ("sec-file", "sec-cik"):
        return "-".join(str(int(g)) for g in groups)
    return "-".join(groups)


def read_filer_ids(page_texts: Sequence[str]) -> tuple[str, ...]:
    """The filer identifiers a document's cover prints, as "kind:number", sorted; () if none.
    Only a number next to its label counts: a cover prints other numbers of the same shape (a
    telephone number is a file number's shape)."""
    cover = unicodedata.normalize("NFKC", "\n".join(page_texts[:_COVER_PAGES]))
    found: set[str] = set()
    for kind, label, shape in _IDS:
        for m in label.finditer(cover):
            # searched to the end, then bounded: a window's edge must not cut a longer number
            after = shape.search(cover, m.end())
            if after is not None and after.start() > m.end() + _AFTER:
                after = None
            before = [
                b for b in shape.finditer(cover, 0, m.start()) if b.start() >= m.start() - _BEFORE
            ]
            hit = after or (before[-1] if before else None)
            if hit is not None:
                found.add(f"{kind}:{_number(kind, hit.groups())}")
    return tuple(sorted(found))


def _kinds(ids: Iterable[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for i in ids:
        kind, _, number = i.partition(":")
        out[kind].add(number)
    return out


def _clash(a: Iterable[str], b: Iterable[str]) -> bool:
    """Identifiers of two filers: a kind both print, with no number in common."""
    ka, kb = _kinds(a), _kinds(b)
    return any(ka[k].isdisjoint(kb[k]) for k in ka.keys() & kb.keys())


def filer_groups(facts: Sequence[DocumentFacts]) -> list[list[int]]:
    """Indices of `facts` per filer, in document order: a shared identifier first, then a shared
    name key where the identifiers do not clash. Documents with no entity and no identifier are
    filers of their own."""
    parent = list(range(len(facts)))
    ids: list[set[str]] = [set(f.filer_ids) for f in facts]

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(i: int, j: int) -> None:
        a, b = sorted((root(i), root(j)))
        if a != b:
            parent[b] = a
            ids[a] |= ids[b]

    holder: dict[str, int] = {}
    for i, f in enumerate(facts):
        for ident in f.filer_ids:
            if ident in holder:
                join(holder[ident], i)
            holder.setdefault(ident, i)
    by_name: dict[str, list[int]] = defaultdict(list)
    for i, f in enumerate(facts):
        if f.entity:
            by_name[entity_key(f.entity)].append(i)
    for members in by_name.values():
        heads: list[int] = []  # one member per filer the name is already in
        for i in members:
            for h in heads:
                if root(h) != root(i) and not _clash(ids[root(h)], ids[root(i)]):
                    join(h, i)
            if all(root(h) != root(i) for h in heads):
                heads.append(i)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(facts)):
        groups[root(i)].append(i)
    return list(groups.values())


def with_aliases(facts: Sequence[DocumentFacts]) -> list[DocumentFacts]:
    """Each document with its filer's other names (distinct by name key, sorted), in order."""
    out = list(facts)
    for group in filer_groups(facts):
        names: dict[str, str] = {}
        for i in group:
            if facts[i].entity:
                names.setdefault(entity_key(facts[i].entity), facts[i].entity)
        for i in group:
            own = entity_key(facts[i].entity) if facts[i].entity else ""
            aliases = tuple(sorted(n for k, n in names.items() if k != own))
            if aliases != facts[i].aliases:
                out[i] = replace(facts[i], aliases=aliases)
    return out


def same_filer(a: DocumentFacts, b: DocumentFacts) -> bool:
    """Two documents of one filer: a common identifier, or one's name is the other's name or alias
    (facts as `with_aliases` left them)."""
    if set(a.filer_ids) & set(b.filer_ids):
        return True
    if not a.entity or not b.entity:
        return False
    return entity_key(b.entity) in {entity_key(n) for n in (a.entity, *a.aliases)}


def filer_of_name(facts: Iterable[DocumentFacts]) -> Callable[[str], str]:
    """name -> its filer's key, for code that compares names (a page's entity axis): every name of
    one filer (the documents' names and aliases) gives one key, the least of its names' keys; a
    name no document bears gives its own key, "" gives ""."""
    keys: dict[str, str] = {}
    for f in facts:
        names = {entity_key(n) for n in (f.entity, *f.aliases) if n}
        if names:
            least = min(names)
            for k in names:
                keys[k] = min(keys.get(k, least), least)

    def filer(name: str) -> str:
        key = entity_key(name) if name else ""
        return keys.get(key, key)

    return filer
