"""Row labels compared as a reader compares them: the words that name the line item (asides,
sign words, leading articles and function words set apart), and when two labels name the same
row (`same_label`), the same item (`same_item`) or the same measure in other words
(`named_alike`).
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz import fuzz

from evalset_pipeline.core.pagetext.text import has_hangul

LABEL_MATCH = 90.0


_POSSESSIVE = re.compile(r"\b(?:our|its|their)\s+", re.I)


def norm_words(text: str) -> str:
    """Case, width and punctuation aside: the words a label or heading is compared by."""
    return re.sub(r"[^\w]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()


# "Unrealized gain (loss), net" is "Unrealized gain, net" the next year: a sign word in
# parentheses says which way the figure may go, not what it is; an aside of three words or more
# ("(included in accounts receivable, net)") says where the row sits.
_SIGN_WORDS = re.compile(
    r"\s*\((?:loss|losses|gain|gains|income|expense|expenses|benefit|deficit|decrease|increase|"
    r"used\s+in|provided\s+by)\)",
    re.I,
)


# ... but "(excluding current portion)", "(before taxes)" say which figure it is: a qualifier in
# parentheses is the same qualifier after a comma ("Long-term debt, excluding current portion"),
# kept as words. ("(net of allowance of $12)" stays an aside: its amount changes every year.)
_QUALIFIER_WORDS = r"(?:excluding|including|exclusive|inclusive|before|after)\b"


_ASIDE = re.compile(r"\s*\((?!\s*" + _QUALIFIER_WORDS + r")(?:[^()\s]+\s+){2,}[^()]*\)", re.I)


_QUALIFIER = re.compile(r"\((\s*" + _QUALIFIER_WORDS + r"[^()]*)\)", re.I)


_TRAILING_MEASURE = re.compile(r"\s+(?:expense|expenses)$")


FUNCTION_WORDS = frozenset("a an and as at by for from in of on or the to total net other".split())


# "Increase (decrease) in cash", "Net decrease in cash", "Net change in cash": one line item,
# whichever way the year went; the sign is the figure's (a filer renames the row when its sign
# flips), so a change is compared as a change.
_CHANGE_WORDS = re.compile(
    r"^(?:net\s+)?(?:\(?(?:increase|decrease|change)\)?\s*/?\s*)+(?=in\b|of\b)", re.I
)


_LEADING_THE = re.compile(r"^the\s+", re.I)


def label_words(label: str) -> str:
    """A row label as compared with another: words (`norm_words`), sign words in parentheses
    aside, a change whichever way it went ("Increase (decrease) in", "Net decrease in") read as
    "change in", a filer's "our" and a leading "the" aside, and a last "expense(s)" that leaves
    two content words ("Research and development expense" is the statement's "Research and
    development"; "Interest expense" stays itself)."""
    label = _CHANGE_WORDS.sub("change ", _LEADING_THE.sub("", _POSSESSIVE.sub("", label.strip())))
    words = norm_words(_QUALIFIER.sub(r", \1", _ASIDE.sub("", _SIGN_WORDS.sub("", label))))
    bare = _TRAILING_MEASURE.sub("", words)
    content = [w for w in bare.split() if w not in FUNCTION_WORDS]
    return bare if bare != words and len(content) >= 2 else words


def _label_score(asked: str, printed: str) -> float:
    """Word order and punctuation aside; Korean labels also spacing aside, as filers space the
    same item differently ("현금및현금성자산", "현금 및 현금성자산")."""
    a, b = label_words(asked), label_words(printed)
    if has_hangul(a) or has_hangul(b):
        return fuzz.ratio(a.replace(" ", ""), b.replace(" ", ""))
    return fuzz.token_sort_ratio(a, b)


def same_label(asked: str, printed: str) -> bool:
    """Two labels of the same words: word order, case, punctuation, sign words and asides
    aside ("Other — net" and "Other, net"; "Net revenues" and "Revenues, net")."""
    return _label_score(asked, printed) >= LABEL_MATCH


def content_words(label: str) -> set[str]:
    """A label's words that say what it is: "Total other, net" has none, "EMEA" one."""
    return set(label_words(label).split()) - FUNCTION_WORDS


def same_item(asked: str, printed: str) -> bool:
    """Two labels that may name one line item: the same words (`_label_score`), or one's two or
    more content words all within the other's ("Diluted earnings per share" of "Diluted earnings
    per ordinary share", "Changes due to collection of expected cash flows" of "Changes in MSR
    fair value due to collection of expected cash flows"). Loose on purpose: it is only ever
    asked together with the same figure and period."""
    if same_label(asked, printed):
        return True
    a, b = content_words(asked), content_words(printed)
    small, large = sorted((a, b), key=len)
    return len(small) >= 2 and small <= large  # one word ("sales") is in too many labels


# Abbreviations filers print for a line item the statements spell out.
_ABBREVIATIONS = (
    (re.compile(r"\bEPS\b", re.I), "earnings per share"),
    (re.compile(r"\bR\s?&\s?D\b", re.I), "research and development"),
)


def _stems(label: str) -> set[str]:
    for short, spelled in _ABBREVIATIONS:
        label = short.sub(spelled, label)
    words = label_words(label).split()
    return {w[:5] for w in words if w not in FUNCTION_WORDS and len(w) > 2 and w.isalpha()}


def named_alike(asked: str, printed: str) -> bool:
    """Two labels that share the words of one measure, each word up to its ending ("Cash Flows
    from Operations" and "Net cash provided by operating activities", "Diluted EPS" and "Diluted
    earnings per share"): two such words, or the shorter label's one. Looser than `same_item`;
    asked only of a cell printing the answer's own specific figure for the asked period."""
    a, b = _stems(asked), _stems(printed)
    return bool(a and b) and len(a & b) >= min(2, len(a), len(b))
