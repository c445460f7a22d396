"""Korean text facts shared by the page readers, the sample corpus and the question writers."""

from __future__ import annotations

import calendar
import re
from datetime import date

from evalset_pipeline.core.pagetext.dates import NUMERIC_DATE, numeric_date
from evalset_pipeline.core.pagetext.text import HANGUL_SYLLABLES, has_hangul, is_hangul_syllable

__all__ = [
    "has_batchim",
    "topic_particle",
    "subject_particle",
    "object_particle",
    "YEAR",
    "year_of",
    "RANGE",
    "INSTANT",
    "dated_range",
    "months_between",
    "SCALE_WORDS",
    "CURRENCY_WORDS",
    "printed_unit",
    "stated_counter",
    "stated_units",
    "measure_units",
    "money_unit",
    "agreed_money_unit",
    "COUNTERS",
    "stated_ranges",
    "stated_instants",
    "month_end",
    "relative_header",
    "relative_periods",
    "relative_caption",
    "without_relative_words",
    "date_relative",
    "heading_subject",
    "BUDGET_STAGES",
    "budget_year",
]

# How a digit is read aloud decides the particle after it: 1 (일), 3 (삼), 6 (육), 7 (칠), 8 (팔)
# and 0 (영) end in a consonant; 2 (이), 4 (사), 5 (오), 9 (구) do not.
_DIGIT_BATCHIM = {
    "0": True,
    "1": True,
    "2": False,
    "3": True,
    "4": False,
    "5": False,
    "6": True,
    "7": True,
    "8": True,
    "9": False,
}


def has_batchim(word: str) -> bool:
    """Does the word end in a final consonant (받침)? Decides 은/는, 이/가, 을/를."""
    last = word.rstrip().rstrip(")")[-1:] or " "
    if is_hangul_syllable(last):
        return (ord(last) - 0xAC00) % 28 != 0
    return _DIGIT_BATCHIM.get(last, False)


def topic_particle(word: str) -> str:
    return "은" if has_batchim(word) else "는"


def subject_particle(word: str) -> str:
    return "이" if has_batchim(word) else "가"


def object_particle(word: str) -> str:
    return "을" if has_batchim(word) else "를"


# --- dates as Korean statements state periods -----------------------------------------------------

# A year as Korean reports write it: "2023", or "’23" / "'23" in tables and bullet points.
YEAR = r"(?:(?:19|20)\d{2}|[’'‘`]\s?\d{2})"


def year_of(text: str) -> int:
    """The year a `YEAR` match names: "’23" is 2023."""
    digits = re.sub(r"\D", "", text)
    return int(digits) if len(digits) == 4 else 2000 + int(digits)


# "2023.01.01 부터 2023.12.31 까지", "2024년 1월 1일 ~ 2024년 9월 30일": a period, start to end
RANGE = r"(?P<d1>" + NUMERIC_DATE + r")\s*(?:부터|~|∼|-|–)\s*(?P<d2>" + NUMERIC_DATE + r")"
# "2023.12.31 현재": a balance at that date
INSTANT = r"(?P<d>" + NUMERIC_DATE + r")\s*\)?\s*현재"
_RANGE = re.compile(RANGE)
_INSTANT = re.compile(INSTANT)


def months_between(start: date, end: date) -> int:
    """Whole months a period from `start` to `end` (both inclusive) covers."""
    return round(((end - start).days + 1) / 30.44)


def dated_range(m: re.Match[str]) -> tuple[int, date] | None:
    """(months, end) of a `RANGE` match; None when its dates are not a forward period."""
    start, end = numeric_date(m["d1"]), numeric_date(m["d2"])
    if start is None or end is None or start >= end:
        return None
    return months_between(start, end), end


def stated_ranges(text: str) -> list[tuple[int, date]]:
    """(months, end) of every "<date> 부터 <date> 까지" period a Korean page states."""
    return [found for m in _RANGE.finditer(text) if (found := dated_range(m)) is not None]


# The scale words of Korean units ("(단위 : 백만원)", "1,234억원", "189만 명") and the currencies.
SCALE_WORDS = {
    "조": "trillions",
    "십억": "billions",
    "억": "100 millions",
    "백만": "millions",
    "만": "10 thousands",
    "천": "thousands",
    "": "",
}
CURRENCY_WORDS = {"원": "KRW", "달러": "USD"}


def printed_unit(unit: str) -> str:
    """A unit as a Korean page prints it: "백만원" of "KRW millions", "억원" of "KRW 100 millions",
    "천달러" of "USD thousands"; "" for a unit Korean pages print no other way ("%", a count)."""
    currency, _, scale = unit.partition(" ")
    word = next((k for k, v in CURRENCY_WORDS.items() if v == currency), None)
    if word is None:
        return ""
    prefix = next((k for k, v in SCALE_WORDS.items() if v == scale), None)
    return "" if prefix is None else prefix + word


# Counters and measures a unit statement names for figures that are not money: counts of people
# ("(단위 : 명)"), cases, companies ("(단위 : 사)", spoken "개사"), shares ("(단위 : 주)") and tonnes
# ("(단위 : 톤(tCO2-eq))"). A figure in one is asked "몇 명", "몇 톤" and answered "1,234 명".
COUNTERS = ("명", "건", "개", "회", "곳", "개소", "개사", "주", "톤")
_SPOKEN = {"사": "개사"}  # "(단위 : 사)" counts companies; a reader asks "몇 개사"
# "(단위 : 백만원)", "(단위: 톤, 백만원)", "(단위 : 톤(tCO2-eq))": one level of parentheses inside
_STATED_UNITS = re.compile(r"\(\s*단\s*위\s*[:：]\s*((?:[^()]|\([^()]*\))*?)\s*\)")


def _unit_word(part: str) -> str:
    """A stated unit without its note ("톤" of "톤(tCO2-eq)"), as a reader says it."""
    word = re.sub(r"\([^()]*\)", "", part).strip()
    return _SPOKEN.get(word, word)


def stated_units(text: str) -> list[tuple[str, ...]]:
    """The units of every unit statement in the text, in order: [("톤", "백만원")] of "(단위: 톤,
    백만원)"."""
    return [
        tuple(w for part in m.split(",") if (w := _unit_word(part)))
        for m in _STATED_UNITS.findall(text)
    ]


def money_unit(word: str) -> str:
    """The unit a Korean money word names ("KRW millions" of "백만원", "KRW" of "원"); "" for
    anything else ("명", "%", "톤")."""
    m = re.fullmatch(r"(조|십억|억|백만|만|천|)\s*(원|달러)", word.strip())
    if m is None:
        return ""
    return " ".join(p for p in (CURRENCY_WORDS[m[2]], SCALE_WORDS[m[1]]) if p)


def measure_units(units: tuple[str, ...]) -> tuple[str, ...]:
    """The units of a statement that are neither money nor a percentage ("톤" of ("톤",
    "백만원"), "주" of ("주", "%")): what the figures that are not amounts are counted in."""
    return tuple(w for w in units if w != "%" and not money_unit(w) and len(w) <= 4)


def stated_counter(text: str) -> str:
    """The unit a table's one unit statement names for figures that are not money ("명" of "(단위 :
    명)", "톤" of "(단위 : 톤(tCO2-eq))", "천톤"); "" when it names money, a percentage, several
    units ("(단위 : 명, 백만원)") or none, or when the text states more than one unit: a figure is
    counted so only where every figure is. Only a `COUNTERS` word is asked "몇 명"."""
    found = set(stated_units(text))
    if len(found) != 1:
        return ""
    [units] = found
    return units[0] if len(units) == 1 and measure_units(units) else ""


def agreed_money_unit(texts: list[str]) -> str:
    """The money unit every unit statement of a document names ("KRW millions" where each says
    "(단위 : 백만원)" or "(단위: 백만원, %)"); "" where they name several or none. A table the
    document prints without its own statement is in it."""
    units = {
        money
        for text in texts
        for units in stated_units(text)
        for w in units
        if (money := money_unit(w))
    }
    return units.pop() if len(units) == 1 else ""


def stated_instants(text: str) -> list[date]:
    """Every "<date> 현재" balance date a Korean page states."""
    return [d for m in _INSTANT.finditer(text) if (d := numeric_date(m["d"])) is not None]


def month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _years_back(d: date, years: int) -> date:
    at_month_end = d.day == calendar.monthrange(d.year, d.month)[1]
    y = d.year - years
    return month_end(y, d.month) if at_month_end else date(y, d.month, min(d.day, 28))


def months_back(d: date, months: int) -> date:
    index = d.year * 12 + d.month - 1 - months
    return month_end(index // 12, index % 12 + 1)


def months_to_date(period: str) -> int | None:
    """How many months a filing's canonical period runs in its year: "2024-Q3" 9, "2024-H1" 6,
    "2024" 12; None for any other period."""
    quarter = re.fullmatch(r"\d{4}-Q([1-4])", period)
    if quarter:
        return 3 * int(quarter[1])
    half = re.fullmatch(r"\d{4}-H([12])", period)
    if half:
        return 6 * int(half[1])
    return 12 if re.fullmatch(r"\d{4}", period) else None


def date_relative(
    months: int | None, relative: int, period: str, period_end: str
) -> tuple[int | None, date] | None:
    """(months, end) of a column named relative to the filing ("당기말", "전분기", "당분기누적"),
    given the filing's canonical period ("2023", "2024-Q3", "2024-H1") and its end date; None
    when the filing's period does not say (a "당분기" column in an annual report)."""
    try:
        end = date.fromisoformat(period_end)
    except ValueError:
        return None
    to_date = months_to_date(period)
    if to_date is None:
        return None
    quarter = re.fullmatch(r"\d{4}-Q[1-4]", period)
    if months is None:  # a balance: "당기말" is the filing's own date, "전기말" the year end before
        if relative == 0:
            return None, end
        year_end = end if to_date == 12 else months_back(end, to_date)
        return None, _years_back(year_end, relative - 1 if to_date != 12 else relative)
    if months == 0:
        months = to_date  # "누적": the year to date
    if months == 12 and relative >= 1 and to_date != 12:
        # "전기" of a quarterly report: the fiscal year before, ending on the year end before
        # the filing's (a roll-forward's comparative column)
        return 12, _years_back(months_back(end, to_date), relative - 1)
    # "당기" of a quarterly report, "당분기" of an annual one: not this filing's span
    if months not in (to_date, 3) or (months == 3 and not quarter):
        return None
    return months, _years_back(end, relative)


# A header naming a period relative to the filing ("당기말", "전기", "당분기 3개월", "전분기누적"):
# the whole header, besides "3개월" / "누적" ("전년 동기 대비" is a comparison, not a period).
_RELATIVE = re.compile(
    r"^\s*(?P<which>당|전전|전)\s*(?P<kind>분기|반기|기)\s*(?P<end>말)?"
    r"(?P<rest>(?:\s*(?:3\s*개월|누적|금액))*)\s*$"
)
_RELATIVE_WORD = re.compile(
    r"(?<![" + HANGUL_SYLLABLES + r"])(?:당|전전|전)\s*(?:분기|반기|기)\s*(?:누적|누계)?\s*말?"
    r"(?![" + HANGUL_SYLLABLES + r"])"
)


def relative_header(header: str) -> tuple[int | None, int] | None:
    """(months, years back) of a header named relative to the filing: "당기말" (None, 0), "전기"
    (12, 1), "당분기 3개월" (3, 0), "당분기누적" (0, 0: the year to date); None for other headers."""
    m = _RELATIVE.match(header)
    if not m:
        return None
    back = {"당": 0, "전": 1, "전전": 2}[m["which"]]
    if m["end"]:
        return None, back
    if "누적" in m["rest"]:
        return 0, back  # the year to date, as long as the filing's period runs
    return {"분기": 3, "반기": 6, "기": 12}[m["kind"]], back


def relative_beside_measure(header: str) -> tuple[int | None, int] | None:
    """`relative_header` of the one relative period a header names beside its measure
    ("보증금액 당분기말", "당기말 장부금액"); None where it names none or several."""
    words = _RELATIVE_WORD.findall(header)
    return relative_header(words[0]) if len(words) == 1 else None


def without_relative_words(text: str) -> str:
    """`text` with its relative period words ("당분기말", "전기") taken out: what a header such as
    "당분기말 유동" says besides its period."""
    return re.sub(r"\s+", " ", _RELATIVE_WORD.sub(" ", text)).strip()


def relative_periods(text: str) -> list[tuple[int | None, int]]:
    """Relative headers of a page's text: a line that is one ("당기말"), or a header line naming
    two or more ("구 분 당기말 전기말"); prose that says "전기 대비" in a sentence is no header."""
    out: list[tuple[int | None, int]] = []
    for line in text.splitlines():
        whole = relative_header(line)
        if whole is not None:
            out.append(whole)
            continue
        words = _RELATIVE_WORD.findall(line)
        if len(words) >= 2:
            out += [found for w in words if (found := relative_header(w)) is not None]
    return out


# A table's caption that is a relative period alone, in brackets: DART notes print a note's table
# once per period under "<당분기말>", "<전기말>", "[당기]", its columns naming measures (취득원가,
# 장부금액), not periods.
_CAPTION = re.compile(r"[<\[〈［]\s*([^<>\[\]〈〉［］]{1,12}?)\s*[>\]〉］]")


def relative_caption(text: str) -> tuple[int | None, int] | None:
    """(months, years back) of the last bracketed relative period a heading prints ("<당분기말>"
    (None, 0), "<전기>" (12, 1)); None when it prints none. The last one is the nearest the
    table: a heading may run on from the table before it."""
    found = [r for m in _CAPTION.finditer(text) if (r := relative_header(m.group(1)))]
    return found[-1] if found else None


# --- what a Korean table is about, from the heading above it ----------------------------------------

_NUMBERING = re.compile(
    r"^\s*(?:[<\[]\s*표\s*[\d-]+\s*[>\]]|표\s*[\d-]+\s*[.:]?|\(\s*\d{1,2}\s*\)|"
    r"\d{1,2}(?:\.\d{1,2})+\.?(?=\s)|\d{1,2}(?:-\d{1,2})*\.|"
    # "1사업규모": a list number set against its heading (a boxed digit in the text layer), not a
    # count ("3차", "2분기", "5개")
    r"\d(?=[가-힣]{2})(?!차|분기|반기|년|개|월|일|기|회|호|단계|위|인|명|건|종|급|장|절|항|조)|"
    r"[가-하]\.|[IVX]{1,4}\.)\s*"
)
# The five statements name a whole statement, not a section of one; a summary of the financial
# information ("요약연결재무정보") prints the statements' own figures ("연결 기준 유동자산", not
# "요약연결재무정보 중 유동자산", which the basis the question names already says).
_STATEMENT = re.compile(
    r"재무상태표|대차대조표|손익계산서|자본변동표|현금흐름표|재무제표|재무정보|이익잉여금처분"
)
_COMPANY = re.compile(r"주식회사|㈜|\(주\)|종속기업|및\s*그\s*종속")
# "재고자산의 내역은 다음과 같습니다": the subject is the noun before "의 내역".
# A noun phrase may run to two words ("배출권 수량의 변동"); the word before is no part of it when
# it is a time or function word ("당기 중", "현재") or ends in a particle ("…에서", "…는").
# "영업활동 자산·부채의 증감 내용": a table of changes, whose subject is the change itself.
_OF_DETAILS = re.compile(
    r"((?:[가-힣A-Za-z][^\s,]*\s)?[^\s)]+)의\s*(?:주요\s*)?(?P<change>증감\s*)?"
    r"(?:내역|구성|변동|현황|명세|내용|세부)"
)
_NOT_OF_PHRASE = re.compile(
    r"^(?:중|및|등|현재|당기|전기|당분기|전분기|당반기|전반기|기간|동안|다음|아래|상기|위)$|"
    r"(?:은|는|을|를|에|에서|으로|와|과|도|의)$"
)
# "리스부채는 기타금융부채로 분류되어 있으며, 그 변동내역은 다음과 같습니다": the sentence's topic
# is what the table's rows move.
_TOPIC_DETAILS = re.compile(
    r"^(\S+?)(?:은|는)\s.*[,，]\s*그\s*(?:변동\s*내역|내역|구성\s*내역|변동)(?:은|는)?\s*다음과"
)
# "당사는 …", "연결실체는 …": the filer as a sentence's topic names no table's subject.
_FILER = r"(?:당사|연결실체|연결회사|회사|지배기업|지배회사|동사)"
_FILER_TOPIC = re.compile(f"^{_FILER}$")
# "기타포괄손익으로 인식하는 재측정요소는 다음과 같습니다": the sentence's topic is what the rows
# are, with the words that restrict it ("사용이 제한된 금융자산" is not every 금융자산), less the
# time words before it ("보고기간말 현재") and the filer ("당사가 보유한 …"). A head that says
# nothing of the rows ("… 지급한 금액은", "그 내용은") or a bare category ("비용") is no subject.
_TOPIC_IS = re.compile(r"(?:^|[,，]\s*)(?P<topic>[^,，]+?)(?:은|는)\s*다음과\s*같습니다")
_TIME_WORD = re.compile(
    r"^(?:현재|중|동안|말|기간|보고기간(?:종료일|말)?|(?:당|전)(?:기|분기|반기)(?:말|초)?|"
    r"\S+일|그|이|동|상기|위|아래)$"
)
_CLAUSE_END = re.compile(r"(?:며|지만|는데)$")
_FILER_WORD = re.compile(f"^{_FILER}")  # "당사가", "연결실체의": the filer with its particle
_SAYS_NOTHING = re.compile(r"^(?:금액|내용|내역|사항|것|정보|결과|현황|변동|증감|구성|명세)$")
_MODIFIER = re.compile(r"(?:한|된|인|할|던|될|는|위한|위해)$")
_MAX_TOPIC_WORDS = 8


def _topic_subject(topic: str) -> str:
    words = re.sub(r"\s*\([^()]*\)", "", topic).split()  # "분기순이익(손실)에 대한 조정"
    # "담보는 없으며 제공한 지급보증": the last clause's; "당사가 보유한 …": after the filer
    cut = [k for k, w in enumerate(words) if _FILER_WORD.match(w) or _CLAUSE_END.search(w)]
    if cut:
        words = words[cut[-1] + 1 :]
    while words and _TIME_WORD.match(words[0]):
        words.pop(0)
    if words and words[-1] in ("내용", "내역"):
        words.pop()
        if words and words[-1] == "관련":
            words.pop()  # "진행중인 공사계약 관련 내용": the contracts
    if words:
        words[-1] = re.sub(r"(?<=\S)(?:내용|내역)$", "", words[-1])
    if not words or len(words) > _MAX_TOPIC_WORDS or _MODIFIER.search(words[-1]):
        return ""  # "… 당기손익으로 인식한 (내역)": what was recognised, the heading leaves unsaid
    if len(words) == 1 and _SAYS_NOTHING.match(words[0]):
        return ""
    if len(words) == 1 and len(words[0]) < 3:
        return ""  # "비용", "자산": a category, not what the rows are
    return " ".join(words)


_TRAILING = re.compile(r"\s*(?:현황표?|추이|내역|명세서?|세부내역|실적|총괄표)$")


_UNIT_STATEMENT = re.compile(r"\(\s*단\s*위\s*[:：][^)]*\)*\)?")
_BULLET = re.compile(r"^[-–·•○●◦□■▪※▶◆◇∙☞]")


def heading_subject(text: str) -> str:
    """What a Korean heading says its table is about: "예산" of "<표 3> 연도별 예산 현황", "재고자산" of
    "보고기간종료일 현재 재고자산의 내역은 다음과 같습니다"; "" for a statement's title, the
    company line, a dated line or a sentence that names no subject."""
    t = _NUMBERING.sub("", text).strip()
    # "<당분기말>" says when, not what: the period of the table's columns, never its subject
    t = _CAPTION.sub(lambda m: "" if relative_header(m.group(1)) else m.group(0), t).strip()
    # "(단위 : 톤(tCO2-eq))" states the unit, not what the rows are
    t = _UNIT_STATEMENT.sub("", t).strip()
    if not has_hangul(t) or _STATEMENT.search(t) or _COMPANY.search(t) or re.search(r"\d{4}", t):
        return ""
    if re.search(r"에\s*관한\s*사항$", t):
        return ""  # "III. 재무에 관한 사항": a part of the filing, whose tables name their own
    if _BULLET.match(t) or re.search(r"[:：]\s*\S", t):
        return ""  # "- 사업기간 : ’05~계속": a bullet or a "label : value" line states a fact
    m = _OF_DETAILS.search(t) or _TOPIC_DETAILS.match(t)
    topic = _TOPIC_IS.search(t)
    if m and not _FILER_TOPIC.match(m.group(1).split()[-1]):
        words = m.group(1).split()
        change = (
            "의 증감" if m.groupdict().get("change") else ""
        )  # "영업활동 자산·부채의 증감 중 …"
        if len(words) > 1 and (words[0] == "및" or words[0].endswith("의")):
            # "연구와 개발에 관련된 지출의 비용의 내역", "일시적차이 및 이연법인세의 증감내용": the
            # phrase runs back past "의" or "및" ("비용" alone is every expense, "이연법인세" alone
            # not the temporary differences the rows are); "당사의 유형자산" stops at the filer
            chain = "" if _FILER_WORD.match(words[0]) else _topic_subject(t[: m.end(1)])
            if chain:
                return chain + change
        t = " ".join(words[1:] if len(words) > 1 and _NOT_OF_PHRASE.search(words[0]) else words)
        t += change
    elif topic and (said := _topic_subject(topic["topic"])):
        return said
    elif re.search(r"(?:니다|다)\s*[.:]?$", t):
        return ""  # a sentence that is not "X의 내역은 …" nor "X는 다음과 같습니다"
    # "계열회사 현황(상세)": the parenthesis first, so that "현황" goes with it
    t = re.sub(r"\s*\([^()]*\)", "", t).strip(" :")
    t = _TRAILING.sub("", t)
    t = re.sub(r"^\S+별\s+", "", t)  # "연도별 예산" -> "예산": the rows say by what
    if not has_hangul(re.sub(YEAR + r"\s*년?\s*도?", "", t)):
        return ""  # "’24년": a period alone
    return t if 1 <= len(t.split()) <= 4 else ""


# The stages a budget passes, printed as sub-columns under the budget year's heading ("2024년 |
# 정부안 | 확정(B)"); a past year's columns are its settled or planned figures (결산, 본예산, 계획).
BUDGET_STAGES = ("정부안", "요구안", "예산안", "확정")
_BUDGET_STAGE = re.compile(r"^\s*(?:" + "|".join(BUDGET_STAGES) + r")\s*(?:\([A-Z]\))?\s*$")
_YEAR_HEADING = re.compile(r"^\s*((?:19|20)\d{2})\s*년?\s*$")
_HEADER_REACH = 8  # lines between a year's heading and its sub-columns' in a table's header


def budget_year(text: str) -> int | None:
    """The year a budget table's stage sub-columns ("정부안", "확정(B)") sit under: the budget year
    of a program sheet, whatever other years its table prints (the settled 2022, the 2023 plan).
    The year heading nearest above the stage's line in the header, within a few lines; None
    where no stage is printed."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not _BUDGET_STAGE.match(line):
            continue
        for above in reversed(lines[max(0, i - _HEADER_REACH) : i]):
            m = _YEAR_HEADING.match(above)
            if m:
                return int(m[1])
    return None
