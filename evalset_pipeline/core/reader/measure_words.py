"""What a figure measures, in words: the vocabulary that tells a row naming a measure ("Revenue",
"Total compensation", "Long-lived assets") from one naming where a figure belongs (a country, a
segment, a person: "South Korea", "Intelligent Cloud", "Jean-Philippe Courtois"), and the measure
a table's heading names ("revenue" of "Revenue by geographic area").
"""

from __future__ import annotations

import re

from evalset_pipeline.core.reader.row_labels import FUNCTION_WORDS

# The nouns (and the modifiers that make one) of statements, notes and operating metrics. Not
# every measure a filer prints is here: it only has to tell a name from a measure, and a label
# that reads as a name is asked by its table's measure (`row_measures`), so a missing word costs
# a question, never a wrong one.
_MEASURE = re.compile(
    r"(?<![\w&])(?:revenues?|sales?|income|earnings?|profits?|loss(?:es)?|margins?|ebit(?:da)?|"
    r"expenses?|costs?|compensation|salar(?:y|ies)|wages?|bonus(?:es)?|awards?|grants?|options?|"
    r"benefits?|payments?|paid|pay|cash|amounts?|assets?|liabilit(?:y|ies)|equity|debt|"
    r"borrowings?|loans?|deposits?|capital|goodwill|intangibles?|inventor(?:y|ies)|receivables?|"
    r"payables?|accru\w*|depreciation|amortization|impairments?|tax(?:es)?|dividends?|shares?|"
    r"stock|prices?|values?|balances?|interests?|returns?|yields?|ratios?|rates?|percent(?:ages?)?|"
    r"growth|changes?|increases?|decreases?|headcount|employees?|customers?|members(?:hips?)?|"
    r"subscribers?|users?|stores?|units?|volumes?|backlog|orders?|bookings?|reserves?|provisions?|"
    r"allowances?|charges?|fees?|commissions?|premiums?|claims?|spend(?:ing)?|expenditures?|"
    r"investments?|securities|funds?|contributions?|obligations?|commitments?|leases?|rent|"
    r"royalt(?:y|ies)|gains?|proceeds|purchases?|acquisitions?|property|equipment|plant|"
    r"contracts?|deferred|retained|outstanding|number|count|average|index|indices|eps|research|"
    r"development|marketing|administrative|selling|operating|gross|adjusted|fair|carrying|"
    r"notional|exposures?|shipments?|production|capacity|days|hours|footage)(?![\w&])|%",
    re.I,
)


def names_measure(text: str) -> bool:
    """Does `text` hold a word that names what a figure measures ("Net revenues", "Stock awards",
    "% of total")?"""
    return bool(_MEASURE.search(text))


# A word for a group of places or businesses: "Other countries", "Rest of world" name where a
# figure belongs as a capitalised name does.
_GROUP_WORD = re.compile(
    r"(?i)^(?:countries|regions|international|foreign|markets|segments|areas|locations|world|rest)$"
)


def is_name(label: str) -> bool:
    """Does a row label name where its figure belongs rather than what it measures: no measure
    word, and every word capitalised ("South Korea", "Jean-Philippe Courtois", "Productivity and
    Business Processes") or a word for a group ("Other countries")? A sentence-case label
    ("Hardware and software") is a filer's line item, not a name; a total ("Total Company") is
    the table's own sum, asked as its total rules say (`table_questions._label_phrase`)."""
    if re.match(r"(?i)(?:sub)?total\b", label.strip()):
        return False
    label = re.sub(r"\([^()]*\)", " ", label)  # "(Note 14)", "(excluding U.S.)": no part of a name
    words = [
        w
        for w in re.findall(r"[^\W\d_][\w&'.-]*", label)
        if w.lower() not in FUNCTION_WORDS and not _CONNECTOR.fullmatch(w)
    ]
    return (
        bool(words)
        and not names_measure(label)
        and all(w[0].isupper() or _GROUP_WORD.match(w) for w in words)
        # "Distributions and other": a sentence-case label's one word is capitalised as its
        # first; a name is one word, or capitalises more than its first ("South Korea")
        and (len(words) > 1 or len(label.split()) == 1 or bool(_GROUP_WORD.match(words[0])))
    )


# Words a name joins its parts with ("Western Hemisphere excluding U.S.").
_CONNECTOR = re.compile(r"excluding|including|except|ex")


# A table "by segment", "by geographic area" or "attributed to the reportable segments" has
# segments for rows: "More Personal Computing" names where a figure belongs, not what it is.
BY_GROUP = re.compile(
    r"\b(?:by|to|among|across|between)\s+(?:(?:the|our|its|major|reportable|operating|business)\s+){0,3}"
    r"(?:segments?|divisions?|regions?|(?:geographic\s+)?areas?|geograph\w*|countr\w*)\b",
    re.I,
)


def section_measure(section: str) -> str:
    """What a section's figures are, without how its rows are grouped: "Net revenues by
    geographic region" -> "Net revenues"."""
    return BY_GROUP.sub("", section).strip(" ,:;") or section


# Where a heading's first phrase ends: a clause, an aside, a verb or a preposition that says
# where or when ("Revenue, classified by …", "Revenue was as follows", "Total compensation ($)").
_PHRASE_END = re.compile(
    r"[,:;()]|\s[-–—]\s|\s(?:was|were|is|are|for|as\s+of|at|in|by|during|from|to)\s", re.I
)


MAX_MEASURE_WORDS = 4


# Words before a measure that say which rows, how many or whose, not what is measured.
_NOT_THE_MEASURE = re.compile(
    r"(?i)the|our|its|top|selected|key|\w*\d\w*|countr(?:y|ies)|regions?|regional|segments?|"
    r"geographic(?:al)?"
)


# Nouns that name a part of a filing, not a measure.
_DOCUMENT_NOUN = re.compile(
    r"(?i)statements?|sheets?|schedules?|tables?|summary|data|reports?|information|results|notes?|"
    r"graphs?|charts?|highlights"
)


# Words that make a measure of a measure word before it ("total", "net", "cumulative").
_MODIFIER = re.compile(r"(?i)total|net|gross|cumulative|annual|long-lived|comparable|consolidated")


def heading_measure(heading: str) -> str:
    """The measure a heading names, as a question says it mid-sentence ("revenue" of "Revenue by
    geographic area:", "total compensation" of "Total Compensation ($)"), "" when it names none:
    its first phrase, ending in a measure word ("Selected Financial Data", "Consolidated Balance
    Sheets" and "Segment Information" name none), from its first measure word when it opens as a
    sentence does ("The following table presents revenue")."""
    head = _PHRASE_END.split(f" {section_measure(heading)} ", maxsplit=1)[0]
    words = head.split()
    if not words or not _MEASURE.fullmatch(words[-1].strip(".")):
        return ""
    while len(words) > 1 and _NOT_THE_MEASURE.fullmatch(words[0]):
        words = words[1:]  # "Top 20 country exposures": how many and of what, not the measure
    if len(words) > MAX_MEASURE_WORDS:
        first = next(i for i, w in enumerate(words) if _MEASURE.fullmatch(w))
        while first > 0 and _MODIFIER.fullmatch(words[first - 1]):
            first -= 1  # "cumulative total return" of "Comparison of five-year cumulative …"
        words = words[first:]
    if len(words) > MAX_MEASURE_WORDS or any(_DOCUMENT_NOUN.fullmatch(w) for w in words):
        return ""  # "Consolidated Statements of Changes": a statement's title, not a measure
    shouted = all(w.isupper() for w in words if any(c.isalpha() for c in w))
    # An acronym stays as printed ("EBITDA"); a heading set in capitals is said in lower case.
    return " ".join(
        w if re.fullmatch(r"[A-Z&]{2,6}", w) and not shouted else w.lower() for w in words
    )
