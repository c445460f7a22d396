"""Who a document is about: the registrant (or issuer, or agency) as the document itself names it.

Read from structure, strongest first, and recorded with its source:

  cover-label   the line(s) just above a cover label such as "(Exact name of registrant as
                specified in its charter)", or the value after "Name of registrant:" / "회사명:"
  pdf-author    the PDF's author field, when the document's first pages print that name (a
                person's name or a tool in the author field is never printed on the cover)
  ticker        the name just before an exchange ticker, "Contoso Ltd. (NYSE: CTSO)"
  legal-name    the most frequent name with a legal-form suffix (Inc., plc, Corporation,
                주식회사, ...) in the document, or the form of a Korean public body's name (a
                ministry's 고용노동부 printed as a cell, an institute's 한국…원)
  running-header the line repeated at the top of most pages
A string made of the form's own words ("Commission File Number", "For the transition period
from to", "(Exact name of registrant …)") is never a name, whatever its place on the cover.
Nothing here knows a company: only the shapes of covers and legal names.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

__all__ = ["find_registrant", "entity_key", "preferred_case", "is_boilerplate"]

# Words of the form itself, never a name: a cover read out of order puts them where the name goes.
_BOILERPLATE = re.compile(
    r"commission\s+file|file\s+n(?:umber|o\.)|transition\s+(?:period|report)|exact\s+name|"
    r"pursuant\s+to|securities\s+exchange\s+act|\bform\s+(?:10|20|40|8|6)-|^\s*form\b|"
    r"(?:annual|quarterly|current)\s+report\b|for\s+the\s+(?:fiscal\s+)?(?:year|quarter|quarterly)|"
    r"state\s+or\s+other\s+jurisdiction|i\.?\s?r\.?\s?s\.?\s+employer|incorporation\s+or\s+organi|"
    r"registrant['’]?s\s+telephone|principal\s+executive\s+offices|check\s+mark|"
    r"securities\s+registered|^\s*(?:or|\(?mark\s+one\)?)\s*$|[☐☒□■]|"
    r"securities\s+and\s+exchange\s+commission|washington,?\s+d\.?\s?c\.|^\s*united\s+states\s*$",
    re.I,
)


def is_boilerplate(name: str) -> bool:
    """A string made of form words ("Commission File Number", "For the transition period from
    to", "(Exact name of registrant …)") rather than a name."""
    return bool(_BOILERPLATE.search(name))


_COVER_LABEL = re.compile(r"\(?\s*exact\s+name\s+of\s+(?:the\s+)?registrant", re.I)
_NAME_LABEL = re.compile(
    r"^\s*(?:name\s+of\s+(?:the\s+)?(?:registrant|issuer|company|reporting\s+entity)|registrant|issuer|"
    r"company\s+name|회\s*사\s*명|법\s*인\s*명|기\s*관\s*명|발\s*행\s*회\s*사)\s*[:：]\s*(?P<name>\S.{1,80}?)\s*$",
    re.I | re.M,
)
_SUFFIX = (
    r"(?:Inc\.?|Incorporated|Corporation|Corp\.?|Company|Co\.|plc|PLC|P\.L\.C\.|Ltd\.?|Limited|LLC|L\.L\.C\.|"
    r"L\.P\.|LP|N\.V\.|S\.A\.|SE|AG|GmbH|S\.p\.A\.|Group|Holdings|Bancorp)"
)
_NAME_TOKEN = r"(?:[A-Z0-9][\w.'’&-]*|&|and|of|the)"
_LEGAL_NAME = re.compile(
    r"(?<![\w&])((?:"
    + _NAME_TOKEN
    + r",?\s+){0,5}?[A-Z0-9][\w.'’&-]*,?\s+"
    + _SUFFIX
    + r"(?:,?\s+"  # "Holdings Corporation", "Group, Inc.": a second legal word is part of the name
    + _SUFFIX
    + r")?)(?![\w])"
)
_KO_LEGAL = re.compile(r"(?:주식회사\s*\S{2,20}|\(주\)\s*\S{2,20}|\S{2,20}\s*주식회사)")
# A Korean public body by the form of its name: a ministry, agency or administration (…부, …처,
# …청) printed as a cell of its own ("소관: 고용노동부"), and a national institute or
# service (한국…원, 국립…원) anywhere; common nouns of the same endings are not names.
_KO_BODY_CELL = re.compile(r"^\s*([가-힣]{2,9}(?:부|처|청))\s*$", re.M)
_KO_NOT_BODY = re.compile(
    r"(?:여부|정부|본부|일부|내부|외부|전부|세부|교부|납부|부처|발행처|사용처|연락처|문의처|출처|거래처|수요처|신청|요청)$"
)
_KO_INSTITUTE = re.compile(r"(?<![가-힣])((?:한국|국립)[가-힣]{2,10}원)(?![가-힣])")
_TICKER = re.compile(
    r"([A-Z0-9][^\n()]{1,60}?)\s*"
    r"\((?:NYSE|NASDAQ|Nasdaq|NYSE American|LSE|TSX|ASX|KRX|KOSPI|KOSDAQ)\s*:\s*[A-Z0-9.]{1,8}\)"
)
_STOP_LEADS = {"the", "our", "this", "such", "each", "any", "a", "an", "its", "and", "of"}


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return re.sub(r"\s+", " ", text).strip(" ,;:·|*_-\u00a0")


def entity_key(name: str) -> str:
    """Spelling-insensitive key: case, punctuation and spacing do not make another entity."""
    return re.sub(r"[^\w]+", "", unicodedata.normalize("NFKC", name).casefold())


def _is_upper(name: str) -> bool:
    letters = [c for c in name if c.isalpha() and c.isascii()]
    return bool(letters) and all(c.isupper() for c in letters)


def preferred_case(name: str, texts: Sequence[str]) -> str:
    """An ALL-CAPS cover name in the case the document prints it elsewhere ("3M COMPANY" -> "3M Company")."""
    if not _is_upper(name):
        return name
    pattern = re.compile(r"\s+".join(re.escape(w) for w in name.split()), re.I)
    variants: Counter[str] = Counter()
    for text in texts:
        for m in pattern.finditer(text):
            found = _clean(m.group(0))
            if not _is_upper(found):
                variants[found] += 1
    return variants.most_common(1)[0][0] if variants else name


def _from_cover_label(text: str) -> str:
    m = _COVER_LABEL.search(text)
    if m:
        lines = [ln.strip() for ln in text[: m.start()].splitlines()]
        picked: list[str] = []
        skipped = 0
        for line in reversed(lines):
            if not line or line in "()":
                if picked:
                    break
                continue
            if is_boilerplate(line):
                # the form's own words sit between the label and the name when the cover is read
                # out of order; a few are stepped over, the name never contains one
                skipped += 1
                if picked or skipped > 4:
                    break
                continue
            if picked and (re.search(r"\d|[):]$", line) or len(line) > 40 or len(picked) >= 3):
                break
            picked.insert(0, line)
        name = _clean(" ".join(picked))
        # a zip code or a file number is no part of a name (a name that opens with a digit is)
        if (
            name
            and len(name) <= 120
            and not is_boilerplate(name)
            and not re.search(r"\d{3,}", name)
        ):
            return name
        after = _name_after(text[m.end() :])
        if after:
            return after
    m = _NAME_LABEL.search(text)
    name = _clean(m["name"]) if m else ""
    return "" if is_boilerplate(name) else name


def _name_after(text: str) -> str:
    """A cover read out of order prints the name right after its label: the next line, when it is
    a legal name or a name in capitals (never a state of incorporation or a form's words)."""
    lines = [ln.strip() for ln in text.splitlines()]
    # the label's own closing words ("as specified in its charter)") may wrap onto the next line
    for i, line in enumerate(lines[:3]):
        if not line or line.endswith(")") or is_boilerplate(line):
            continue
        name = _clean(line)
        words = name.split()
        if re.search(r"\d{2,}", name) or not 2 <= len(words) <= 8:
            return ""
        if re.search(r"jurisdiction|incorporation", " ".join(lines[i + 1 : i + 3]), re.I):
            return ""  # the state of incorporation, over its own label
        if _LEGAL_NAME.fullmatch(name) or _is_upper(name):
            return name
        return ""
    return ""


def _as_printed(author: str, first_page: str) -> str:
    """The author as the cover prints it, with a leading qualifier the author field left off
    ("Office of Personnel Management" printed "United States Office of Personnel Management")."""
    key = entity_key(author)
    for line in first_page.splitlines()[:12]:
        line = _clean(line)
        line_key = entity_key(line)
        if line_key != key and line_key.endswith(key) and len(line.split()) <= 10:
            if not is_boilerplate(line) and line[:1].isupper():
                return line
    return author


def _legal_names(texts: Sequence[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for text in texts:
        flat = re.sub(r"\s+", " ", text)
        for m in _LEGAL_NAME.finditer(flat):
            name = _clean(m.group(1))
            words = name.split()
            while words and words[0].lower() in _STOP_LEADS:
                words = words[1:]
            if len(words) >= 2 and not is_boilerplate(" ".join(words)):
                counts[" ".join(words)] += 1
        for m in _KO_LEGAL.finditer(flat):
            counts[_clean(m.group(0))] += 1
        for m in _KO_BODY_CELL.finditer(text):
            if not _KO_NOT_BODY.search(m.group(1)):
                counts[m.group(1)] += 1
        for m in _KO_INSTITUTE.finditer(flat):
            counts[m.group(1)] += 1
    return counts


def find_registrant(
    page_texts: Sequence[str], author: str = "", running_header: str = ""
) -> tuple[str, str, float]:
    """(name, source, confidence) for one document from its pages' text in order; ("", "", 0) if unknown."""
    cover = "\n".join(page_texts[:3])
    name = _from_cover_label(cover)
    if name:
        return preferred_case(name, page_texts), "cover-label", 0.95
    author = _clean(author or "")
    if (
        author
        and len(author) >= 2
        and entity_key(author)
        and entity_key(author) in entity_key(cover)
    ):
        return _as_printed(author, page_texts[0] if page_texts else ""), "pdf-author", 0.9
    m = _TICKER.search(re.sub(r"[ \t]+", " ", cover))
    if m:
        ticker_name = _clean(re.split(r"[–—]|\)\s", m.group(1))[-1])
        words = ticker_name.split()
        if 1 <= len(words) <= 6:
            return ticker_name, "ticker", 0.8
    names = _legal_names(page_texts)
    if names:
        # Frequency across the whole document; a name on the cover counts double (it is the subject).
        on_cover = _legal_names(page_texts[:2])
        best = max(names, key=lambda n: (names[n] + 2 * on_cover.get(n, 0), -len(n)))
        if names[best] >= 2 or on_cover.get(best):
            return preferred_case(best, page_texts), "legal-name", 0.7
    if running_header and not is_boilerplate(running_header):
        return running_header, "running-header", 0.5
    if author:
        return author, "pdf-author", 0.3
    return "", "", 0.0
