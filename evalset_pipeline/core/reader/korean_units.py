"""What a Korean column header (or row label) says its figures are: percentages ("지분율(%)",
"비율"), counts of people ("직원수", "주주수", "인원", "기간제 근로자"), of companies ("회사수"), of
shares ("소유주식수"), years ("근속연수"), quantities ("수량": in the unit its statement names) or
money ("금액", "급여액"). A table's unit line ("(단위 : 백만원)") is its amounts' unit; a column
that counts keeps its own, whatever the line says.
"""

from __future__ import annotations

import re

from evalset_pipeline.core.pagetext.text import has_hangul

__all__ = ["PERCENT", "MONEY", "QUANTITY", "korean_kind", "spaced_out"]

PERCENT = "%"
MONEY = "money"
QUANTITY = "quantity"  # a quantity in the unit the table's statement names ("톤" of "수량")

# "지분율", "할인율", "집행률", "비중", "(%)": a share or a rate. "환율" is won per dollar, not a share.
_PERCENT = re.compile(r"%|(?<!환)[율률](?![가-힣])|비중")
# "금액", "총액", "급여액", "장부가액", "보수": money, whatever else the header names ("1인평균 급여액")
# ("소액주주" is a shareholder: "액" counts only ending a word); "자본금", "차입금": a word ending in
# "금"; the statements' own amounts ("자산", "매출", "이익")
_MONEY = re.compile(
    r"금액|[액금](?![가-힣])|보수|급여|원가|비용|자산|부채|자본|매출|이익|손실|수익|손익|"
    r"(?:백만|천|억|조)?원\)"
)
_QUANTITY = re.compile(r"수량|물량")
# people counted: "직원수", "주주수", "인원(수)", "근로자수"; a header may name them alone ("기간제
# 근로자 전체" over a count column), a row label only with "수" or "인원" ("근로자능력개발지원" names a
# program, not a count)
_PEOPLE = r"(?:주주|직원|임원|종업원|근로자|사원|회원|가입자|수혜자|참여자|이용자)"
_PEOPLE_COUNT = re.compile(_PEOPLE + r"\s*수(?![가-힣])|인원")
_PEOPLE_HEADER = re.compile(r"(?<![가-힣])" + _PEOPLE + r"(?![가-힣])")
_COUNTED = (
    (re.compile(r"(?:회사|기업|법인)\s*수(?![가-힣])"), "개사"),
    (re.compile(r"주식\s*(?:총)?수(?![가-힣])"), "주"),
    (re.compile(r"근속\s*연수|근속\s*년수"), "년"),
    (re.compile(r"건\s*수(?![가-힣])"), "건"),
)


def spaced_out(text: str) -> str:
    """A header as read, its justified spacing closed ("직 원 수" -> "직원수", "합 계" -> "합계"):
    a table sets a short header's syllables apart to fill the cell."""
    return _SPACED.sub(lambda m: m[0].replace(" ", ""), text)


# single syllables set one space apart: "직 원 수", "총 액"
_SPACED = re.compile(r"(?<!\S)[가-힣](?: [가-힣](?!\S))+")


def korean_kind(text: str, header: bool = True) -> str:
    """What a Korean header (`header`) or row label says its figures are: `PERCENT`, `MONEY`,
    `QUANTITY`, a counter ("명", "개사", "주", "년", "건"), or "" when it says none."""
    if not has_hangul(text):
        return ""
    text = spaced_out(text).strip()
    if _PERCENT.search(text):
        return PERCENT
    # a count named as one ("소액 주주수", "소유주식수") before the money words of its other words
    if _PEOPLE_COUNT.search(text):
        return "명"
    for pattern, counter in _COUNTED:
        if pattern.search(text):
            return counter
    # "배출권 수량의 변동 … 배출부채": a quantity named is one, whatever money the words beside it name
    if _QUANTITY.search(text):
        return QUANTITY
    if _MONEY.search(text):
        return MONEY
    if header and _PEOPLE_HEADER.search(text):
        return "명"
    return ""


# A total column ("합계", "계", "소계") sums the columns left of it: it counts what they count.
TOTAL_HEADER = re.compile(r"^(?:합계|총계|소계|계)$")
