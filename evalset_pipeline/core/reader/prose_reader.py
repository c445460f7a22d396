"""Figures that prose states for a named period, read as one-row tables.

Much of a filing is prose, and prose states figures as plainly as a table does:

    Rental expense under operating leases was $393 million in 2018, $343 million in 2017 ...
    Advertising expenses for fiscal 2015, 2014 and 2013 were $113.6 million, $87.9 million and
    $88.5 million, respectively.
    Amortization expense totaled $1.8 billion for the years ended December 31, 2022, 2021 and 2020 ...

This reader takes only the plainest shape, the one a reader cannot misread: a subject (a noun
phrase), a copula or "totaled" / "amounted to", then amounts, each tied to a period by position
("$X in 2018") or by "respectively". A sentence whose figure has no period of its own ("Net
revenue was $12.5 billion, up 6%") states nothing this reader can ask about, and neither does a
figure inside a clause ("recorded a charge of $105 million"). English only: the Korean forms of
this project's corpora state figures in tables.

Each (subject, period, amount) becomes a `Table` of one row and one column, so the writer asks
it and the judge reads it back exactly as a table cell ("What was rental expense under operating
leases in 2018?" is answered by a note's sentence or by a table row of that name and year).
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from evalset_pipeline.core.pagetext.dates import MONTH_DAY_YEAR, MONTH_WORD, find_dates, plain
from evalset_pipeline.core.pagetext.text import number_value
from evalset_pipeline.core.reader.table_reader import Column, Row, Table

__all__ = ["read_prose_tables", "PROSE_TITLE"]

PROSE_TITLE = "(stated in prose)"  # the title of every table this reader makes: the writer can tell them apart

_DATE = plain(MONTH_DAY_YEAR)
_YEAR = r"(?:19|20)\d{2}(?![\d,.-]\d)"
_LIST_SEP = r"(?:\s*,\s*(?:and\s+)?|\s*,?\s+and\s+)"
_DATES = rf"{_DATE}(?:{_LIST_SEP}(?:{_DATE}|{_YEAR}))*"
_YEARS = rf"{_YEAR}(?:{_LIST_SEP}{_YEAR})*"
_SPAN = r"(?P<span>three|six|nine|twelve)[-\s]months?(?:\s+periods?)?\s+ended\s+"
# A period as prose names it, with the word that ties it to a figure.
_PERIOD = re.compile(
    r"(?:in|for|during|as\s+of|at)\s+(?:each\s+of\s+)?(?:the\s+)?(?:"
    rf"{_SPAN}(?P<span_dates>{_DATES})"
    rf"|(?:fiscal\s+)?years?\s+ended\s+(?P<year_dates>{_DATES})"
    rf"|(?P<fiscal>fiscal)\s+(?:years?\s+)?(?P<fiscal_years>{_YEARS})"
    rf"|(?P<instant_dates>{_DATES})"
    rf"|(?P<years>{_YEARS})(?!\s*(?:{MONTH_WORD}|\d)))",
    re.I,
)
_SCALE = r"(?P<scale>thousand|million|billion|trillion)s?\b"
_AMOUNT = re.compile(
    r"(?:(?:approximately|about|roughly|nearly|almost|over)\s+)?"
    r"(?:(?P<cur>US\$|\$|€|£)\s?(?P<num>\d[\d,]*(?:\.\d+)?)(?:\s+" + _SCALE + r")?"
    r"(?P<per_share>\s+per\s+(?:basic\s+|diluted\s+)?(?:common\s+)?share\b)?"
    r"|(?P<pct>\d[\d,]*(?:\.\d+)?)\s?(?:%|percent\b))"
)
_CURRENCY = {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP"}
# The verb that states a level: a copula, "totaled", or a change that ends at the level ("increased
# 5% to $14.7 billion", "grew to $3.0 billion"); the figure follows it directly.
_VERB = re.compile(
    r"\s(?P<verb>was|were|is|are|totaled|totalled|totals|total|amounted\s+to|came\s+to|"
    r"(?:increased|decreased|grew|rose|declined|fell)(?:\s+(?:by\s+)?(?:approximately\s+)?"
    r"(?:(?:US\$|\$|€|£)\s?[\d.,]+(?:\s+(?:thousand|million|billion))?|[\d.]+\s?(?:%|percent)))?\s+to)"
    r"\s+(?=(?:approximately|about|roughly|nearly|almost|over)?\s*(?:US\$|\$|€|£|\d))",
    re.I,
)
_RESPECTIVELY = re.compile(r"\s*,?\s*respectively\b", re.I)
# The first words a subject may not start with (a pronoun or a quantifier names no line item).
_NOT_SUBJECT = {
    "it",
    "this",
    "that",
    "these",
    "those",
    "there",
    "which",
    "what",
    "who",
    "we",
    "they",
    "he",
    "she",
    "each",
    "both",
    "all",
    "such",
    "one",
    "none",
    "any",
    "some",
    "its",
    "our",
    "their",
    "amounts",
}
_LEAD_IN = re.compile(
    r"^(?:in|for|during|as|at|after|before|excluding|including|on|compared|since|additionally|"
    r"also|however|overall|accordingly|consequently|as\s+a\s+result|by|through|upon|with|while)\b",
    re.I,
)
_QUALIFYING_LEAD = re.compile(
    r"^(?:for|excluding|including|adjusted|adjusting|on\s+an?|net\s+of|before|after|"
    r"within|among|of|under|with\s+respect\s+to|in\s+the\s+case\s+of|in\s+connection\s+with|"
    r"as\s+part\s+of|in\s+relation\s+to|relat(?:ed|ing)\s+to|due\s+to|as\s+a\s+result\s+of|"
    r"following|upon)\b",
    re.I,
)
_DETERMINER = re.compile(
    r"^(?:the|our|its|their|a|an)\s+(?:(?:company|corporation|group|firm|bank|partnership|"
    r"trust|fund|registrant)(?:'|’)s\s+)?",
    re.I,
)
_CLAUSE_WORD = re.compile(
    r"\b(?:this|these|those|such|said|was|were|is|are|has|have|had|will|would|which|that|who|whom|whose|if|when|"
    r"where|because|although|increased|decreased|includes?|included|recorded|reported|"
    r"recognized|compared)\b",
    re.I,
)
# A clause set off by commas between a subject and its verb: a non-restrictive "which" clause, or
# the "net of" that says which figure it is.
_ASIDE = re.compile(r"\s*,\s*(?:(?P<which>which\b)|net\s+of\b)[^,;:()$€£]*,\s*$", re.I)
_DANGLING_END = re.compile(r"\b(?:of|and|or|to|for|in|the|a|an|by|on|at|with|from|as)$", re.I)
MAX_SUBJECT_WORDS = 12


def _paragraph_text(text: str) -> Iterator[str]:
    """Paragraphs of a text layer, lines joined; a short line without closing punctuation that is
    followed by a capitalised line is a heading and ends its paragraph ("Quarterly results")."""
    lines = [ln.strip() for ln in unicodedata.normalize("NFKC", text).splitlines()]
    current: list[str] = []
    for i, line in enumerate(lines):
        if not line:
            if current:
                yield " ".join(current)
                current = []
            continue
        if current and current[-1].endswith("-") and line[:1].islower():
            current[-1] = current[-1][:-1] + line  # a word broken at the line's end
        else:
            current.append(line)
        nxt = next((x for x in lines[i + 1 :] if x), "")
        if (
            len(line.split()) <= 6
            and not re.search(r"[.,;:\-–—]$|\b(?:and|of|the|or|to)$", line)
            and nxt[:1].isupper()
        ):
            yield " ".join(current)
            current = []
    if current:
        yield " ".join(current)


_ABBREVIATION = re.compile(
    r"(?:\b[A-Z]\.[A-Z]\.|\b(?:Inc|Co|No|Nos|Corp|Ltd|Mr|Ms|Dr|Jr|Sr|St|vs)\.)$"
)


def _sentences(paragraph: str) -> Iterator[str]:
    # A period ends a sentence when a capital (or a bullet) follows, unless it closes initials or a
    # common abbreviation ("U.S. Tax Act", "Inc. and"): a wrong split would make a fragment a subject.
    out: list[str] = []
    for part in re.split(r"(?<=[.;!?])\s+(?=[A-Z•·(\"“])|\s*[•·]\s*", paragraph):
        part = part.strip()
        if not part:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    yield from out


def _dates_of(text: str) -> list[datetime.date]:
    """Dates of a list: "December 31, 2022 and 2021" names December 31 of both years."""
    found = [d for _, _, d in find_dates(text)]
    if not found:
        return []
    out = list(found)
    tail = text[text.rfind(str(found[-1].year)) + 4 :] if found else ""
    for y in re.findall(_YEAR, tail):
        try:
            out.append(found[-1].replace(year=int(y)))
        except ValueError:
            return []
    return out


def _periods(m: re.Match[str]) -> list[_Period]:
    """(months, end, year, header) of each period a period phrase lists."""
    header = m.group(0)
    if m["span_dates"]:
        months = {"three": 3, "six": 6, "nine": 9, "twelve": 12}[m["span"].lower()]
        return [(months, d, None, header) for d in _dates_of(m["span_dates"])]
    if m["year_dates"]:
        return [(12, d, None, header) for d in _dates_of(m["year_dates"])]
    if m["instant_dates"]:
        return [(None, d, None, header) for d in _dates_of(m["instant_dates"])]
    years = m["fiscal_years"] or m["years"]
    label = "fiscal " if m["fiscal"] else ""
    return [(None, None, int(y), f"{label}{y}") for y in re.findall(_YEAR, years)]


def _subject(before: str) -> tuple[str, re.Match[str] | None] | None:
    """The noun phrase a figure is stated for, and a period phrase that closes it ("Advertising
    expenses for fiscal 2015, 2014 and 2013"), or None when the words before the verb name none."""
    if before.rstrip().endswith(","):
        aside = _ASIDE.search(before)
        if aside is None:
            return None  # "In 2022, as described above, ... was": which words are the subject?
        # "Royalty expense, which was recorded under cost of revenue, was ...": the clause says where
        # the figure is booked, not what it is, and goes; "receivables, net of allowances, were ..."
        # names which figure it is, and stays.
        before = before[: aside.start()] if aside["which"] else before.rstrip().rstrip(",")
        named = re.split(r",\s*", before.strip())[-1]  # past a lead-in period ("In 2022, the ...")
        if aside["which"] and len(_DETERMINER.sub("", named).split()) < 2:
            return None  # "The liability, which was accrued under the Act,": named only before
    text = re.split(r"[:;•·–—()]", before)[-1].strip()
    text = re.sub(r"^(?:also|additionally|further|similarly),?\s+", "", text, flags=re.I)
    period = None
    lead = _PERIOD.match(text)
    if lead is not None and re.match(r",?\s+(?!of\b|and\b)[a-z]", text[lead.end() :]):
        # "At December 31, 2022, the pension obligation was ...": the sentence opens with its period.
        period, text = lead, text[lead.end() :].lstrip(" ,")
    for m in _PERIOD.finditer(text):
        if m.end() == len(text):
            if period is not None:
                return None  # a period before the subject and another after it: which one?
            period, text = m, text[: m.start()].rstrip(" ,")
    if ", " in text:
        head, _, tail = text.rpartition(", ")
        if _QUALIFYING_LEAD.match(head) and not _PERIOD.fullmatch(head.strip()):
            # "For the primary U.S. pension plan, the assumption was 6.00%"; "Excluding currency, the
            # increase was $149 million": the clause narrows the subject, which alone would misname it.
            return None
        if re.search(r"\d", head) or _LEAD_IN.match(head):
            text = tail
    text = _DETERMINER.sub("", text).strip()
    words = text.split()
    if not 1 <= len(words) <= MAX_SUBJECT_WORDS or words[0].casefold() in _NOT_SUBJECT:
        return None
    if re.search(r"[\d$%€£\"“”]", text) or _CLAUSE_WORD.search(text) or _DANGLING_END.search(text):
        return None
    if " under " in f" {text} " or sum(c.isalpha() for c in text) < 3:
        return None  # " under " is the question grammar's section marker
    if text[:1].isupper() and text[1:2].islower():
        text = text[0].lower() + text[1:]  # capitalised only because it began the sentence
    return text, period


def _amount(m: re.Match[str]) -> tuple[str, float, str] | None:
    """(as printed, value, unit) of an amount: "$1.821 billion" -> ("1.821", 1.821, "USD billions")."""
    num = m["num"] or m["pct"]
    try:
        value = number_value(num)
    except ValueError:
        return None
    if m["pct"]:
        return f"{num}%", value, "%"
    if m["per_share"]:
        return num, value, _CURRENCY[m["cur"]]  # a per-share amount is in the currency itself
    unit = _CURRENCY[m["cur"]] + (f" {m['scale'].lower()}s" if m["scale"] else "")
    return num, value, unit


_Period = tuple[int | None, datetime.date | None, int | None, str]
_LIST = re.compile(_LIST_SEP)


def _statements(sentence: str) -> Iterator[tuple[str, str, float, str, _Period]]:
    """(subject, cell, value, unit, period) of each figure the sentence ties to a period."""
    verb = _VERB.search(sentence)
    if verb is not None:
        subject = _subject(sentence[: verb.start()])
        if subject is not None:
            yield from _figures(*subject, sentence[verb.end() :])
        return
    recorded = _RECORDED.search(sentence)
    if recorded is not None:
        # "The Company recognized total rental expenses for operating leases of $75.2 million, ...
        # during the years ended ...": the figure's name is the object, its period may open the sentence.
        lead = _PERIOD.match(
            re.sub(
                r"^(?:also|additionally),?\s+", "", sentence[: recorded.start()].strip(), flags=re.I
            )
        )
        name = _object_name(recorded["object"])
        if name is not None:
            yield from _figures(name, lead, sentence[recorded.end() :])


_RECORDED = re.compile(
    r"\b(?:recognized|recognised|recorded|incurred|reported|generated)\s+(?:an?\s+)?"
    r"(?P<object>[A-Za-z][^$€£\d,;:()]{2,90}?)\s+of\s+(?=(?:approximately\s+|about\s+)?(?:US\$|\$|€|£))",
    re.I,
)


def _object_name(text: str) -> str | None:
    """The name of a recorded figure ("total rental expenses for operating leases"), or None when it
    points back to something named earlier ("the divestiture", "this settlement")."""
    text = text.strip()
    words = text.split()
    if not 3 <= len(words) <= MAX_SUBJECT_WORDS or re.search(
        r"\b(?:the|this|these|those|such|its|their|our)\b", text, re.I
    ):
        return None
    if _CLAUSE_WORD.search(text) or _DANGLING_END.search(text):
        return None
    return text


# Words after a figure that narrow what it is of ("..., respectively, relating to interest income on
# ...", "$54 million of tax expense"): the sentence's subject alone would misname the figure.
_QUALIFIED = re.compile(
    r"^\s*,?\s*(?:respectively\s*,?\s*)?(?:relat(?:ed|ing)\s+to|attributable\s+to|associated\s+with|"
    r"in\s+connection\s+with|for\b|from\b|on\b|of\b|of\s+which|excluding|including|net\s+of|"
    r"before|after|under)",
    re.I,
)


def _figures(
    name: str, subject_period: re.Match[str] | None, rest: str
) -> Iterator[tuple[str, str, float, str, _Period]]:
    if _QUALIFIED.match(_after_figures(rest)):
        return
    tied = list(_tied(rest))
    if tied:  # "$A in 2018, $B in 2017 and $C in 2016"
        for cell, value, unit, period in tied:
            yield name, cell, value, unit, period
        return
    run = _run(rest)
    if not run:
        return
    tail = rest[run[-1][0] :]
    stripped = tail.lstrip(" ,")
    after = _PERIOD.match(stripped)
    listed = after is not None and len(run) > 1 and len(_periods(after)) == len(run)
    if listed or _RESPECTIVELY.match(stripped[after.end() :] if after is not None else tail):
        # "were $A, $B and $C (for PERIODS)(, respectively)": the list pairs with the periods in order.
        source = after if after is not None else subject_period
        periods = _periods(source) if source is not None else []
        if len(run) > 1 and len(periods) == len(run):
            for (_, (cell, value, unit)), period in zip(run, periods, strict=False):
                yield name, cell, value, unit, period
        return
    if len(run) == 1 and after is None and subject_period is not None:
        periods = _periods(subject_period)
        if len(periods) == 1 and not _PERIOD.search(
            tail[:60]
        ):  # "Rent expense for fiscal 2015 was $92.9 million."
            cell, value, unit = run[0][1]
            yield name, cell, value, unit, periods[0]


def _after_figures(rest: str) -> str:
    """What follows the figures and their periods ("$A and $B in 2017 and 2016, respectively, ...")."""
    pos = 0
    while True:
        m = _AMOUNT.match(rest, pos) or _LIST.match(rest, pos) or _PERIOD.match(rest, pos)
        m = m or re.compile(r"\s+(?=in\b|for\b|during\b|as\s+of\b|at\b)").match(rest, pos)
        if m is None or m.end() == pos:
            return rest[pos:]
        pos = m.end()


def _run(rest: str) -> list[tuple[int, tuple[str, float, str]]]:
    """(end, parsed) of the list of amounts that opens `rest` ("$A, $B and $C")."""
    out: list[tuple[int, tuple[str, float, str]]] = []
    pos = 0
    while True:
        if out:
            sep = _LIST.match(rest, pos)
            if sep is None:
                return out
            pos = sep.end()
        m = _AMOUNT.match(rest, pos)
        parsed = _amount(m) if m is not None else None
        if m is None or parsed is None or (out and parsed[2] != out[0][1][2]):
            return out  # a list of one unit only: "$5 million and 12%" is not a list of figures
        out.append((m.end(), parsed))
        pos = m.end()


def _tied(rest: str) -> Iterator[tuple[str, float, str, _Period]]:
    """Amounts each followed by one period, in a run: "$A in 2018, $B in 2017 and $C in 2016"."""
    pos = 0
    while True:
        if pos:
            sep = _LIST.match(rest, pos)
            if sep is None:
                return
            pos = sep.end()
        m = _AMOUNT.match(rest, pos)
        parsed = _amount(m) if m is not None else None
        period = (
            _PERIOD.match(rest, m.end() + 1)
            if m is not None and rest[m.end() : m.end() + 1] == " "
            else None
        )
        if m is None or parsed is None or period is None:
            return
        periods = _periods(period)
        if len(periods) != 1:
            return
        yield (*parsed, periods[0])
        pos = period.end()


def read_prose_tables(layer: dict[str, Any]) -> list[Table]:
    """One-row tables of the figures the page's prose states for a named period (see the module)."""
    tables: list[Table] = []
    for paragraph in _paragraph_text(str(layer.get("text") or "")):
        if len(paragraph.split()) < 6:
            continue
        for sentence in _sentences(paragraph):
            for name, cell, value, unit, (months, end, year, header) in _statements(sentence):
                column = Column(
                    index=0, header=header, months=months, end=end, year=year, x0=0.0, x1=0.0
                )
                row = Row(
                    label=name,
                    parent="",
                    cells=(cell,),
                    values=(value,),
                    indent=0.0,
                    is_total=False,
                )
                tables.append(
                    Table(
                        columns=(column,),
                        rows=(row,),
                        unit=unit,
                        per_share_unit=unit.split()[0],
                        title=PROSE_TITLE,
                        top=0.0,
                        bottom=0.0,
                    )
                )
    return tables
