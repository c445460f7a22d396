"""What a Korean table's row label names, for `table_questions` to ask it as a reader would.

A DART note table's rows are not all measures: a roll-forward's rows are movements ("기초",
"증가", "상각", "기말") of what its caption names ("리스부채의 변동"), a guarantee or related-party
table's rows are companies ("양우종합건설", "Taihan Netherlands B.V.") whose figure is what the
column header or the caption names ("보증금액", "지분율"). Such a row is asked with its measure
("리스부채의 기초", "Taihan Netherlands B.V.의 지분율"), or not at all. Sections printed around the
rows carry debris a question must not repeat: the label column's header ("구분"), bracket marks
("<기타특수관계자>", "【시장 규모】"), a line of figures.
"""

from __future__ import annotations

import re

from evalset_pipeline.core.pagetext.korean import relative_header
from evalset_pipeline.core.pagetext.text import HANGUL_SYLLABLES, has_hangul

__all__ = [
    "is_movement",
    "is_party",
    "names_account",
    "korean_section",
    "merged_columns",
    "spoken_label",
    "wrapped_half",
    "MOVEMENT_JOINER",
    "movement_label",
    "printed_movement",
    "party_name",
    "related_party_table",
]

# A roll-forward's lines: balances at either end and what moved between ("기초 잔액", "취득",
# "대체", "환입"), each naming no measure of its own.
_MOVEMENT = re.compile(
    r"^(?:기초|기말|증가|감소|증감|순증감|기타증감|변동|취득|처분|매각|대체|상각|감가상각|환입|지급|"
    r"사용|전입|설정|제각|수취|상환|차입|실행|발행|환산|손상|회수|평가|인식|해지|재분류|연결범위변동)"
    r"(?:액|잔액|금액)?(?:\s*등)?$"
)

_MOVEMENT_WORD = re.compile(
    r"(?:전입|환입|상각|대체|처분|취득|평가|손상|증가|감소|증감|지급|사용|상환|차입|발행|회수|환산|제각|수취)"
    r"(?:액|금액)?$"
)

# The head noun of an account or a measure ("단기대여금", "매출원가", "지분율", "주주수"): a label
# ending in one names what its figure is.
_ACCOUNT_HEAD = re.compile(
    r"(?:자산|부채|자본|수익|비용|손익|이익|손실|원가|매출|채권|채무|충당금|금|액|료|비|세|급여|"
    r"차입|대여|예금|적금|주식|증권|상품|제품|재공품|재료|저장품|미착품|토지|건물|구축물|설비|장치|"
    r"공구|기구|비품|운반구|권|율|수|량|가치|요소|잉여금|분|계|배당|보증|담보|이자|환율|주|차익|차손|"
    r"효과|원|명|톤|잔고|흐름|유입|유출|수취|납부|환급|증감|조정|항목|투자|부동산|손상|평가|한도|사채|리스|약정|계약|수당|상여|퇴직|연금|보험|용역|공사|시설)"
    r"(?:\s*\([^()]*\))?$"
)

# Company forms: "주식회사", "(주)", "㈜" and the Latin ones ("Ltd.", "B.V.", "Inc.", "GmbH").
_KO_FORM = re.compile(r"\(주\)|㈜|주식회사|유한회사|합자회사|재단법인|사단법인")
_LATIN_FORM = re.compile(
    r"(?i)\b(?:inc|corp|co|ltd|llc|plc|gmbh|b\.?\s?v|n\.?\s?v|s\.?\s?a|a\.?\s?g|pte|pty|sdn\s+bhd|"
    r"limited|company|corporation|holdings?)\b\.?"
)
# Korean companies are named by their business ("양우종합건설", "호반산업", "건설공제조합").
_KO_BUSINESS = re.compile(
    r"(?:건설|산업|전선|전자|개발|물산|상사|홀딩스|그룹|은행|증권|캐피탈|조합|공사|공단|화학|제약|"
    r"통신|엔지니어링|에너지|중공업|해운|항공|리츠|파트너스|인베스트먼트|글로벌)$"
)

# The header of the label column, a list heading, never a section: "구분 중 북미" says nothing.
_LABEL_HEADER = re.compile(
    r"^(?:구\s*분|과\s*목|계정\s*과목|항\s*목|내\s*역|내\s*용|회사명|법인명)$"
)
_BRACKETS = re.compile(r"[<>\[\]【】〈〉《》「」『』［］()（）]")


def is_movement(label: str) -> bool:
    """A roll-forward's line: a balance at one end ("기초", "기말 잔액") or a movement ("증가",
    "상각", "지급"), which names no measure until the table's subject does."""
    return bool(_MOVEMENT.match(re.sub(r"\s+", "", label)))


def is_party(label: str) -> bool:
    """A row named by a company: a Latin-script name, a Korean company form ("(주)", "주식회사"),
    or a Korean name of a business ("양우종합건설", "호반산업")."""
    text = label.strip()
    if _KO_FORM.search(text):
        return True
    if not has_hangul(text):
        return bool(re.search(r"[A-Za-z]{2}", text))
    return bool(_KO_BUSINESS.search(text))


# K-IFRS (1024) calls a filer's related parties 특수관계자: a table headed so ("특수관계자 명칭",
# "특수관계자와의 거래") holds the filer's figures with each party, row by row.
_RELATED_PARTY = re.compile(r"특\s*수\s*관\s*계\s*자")


def related_party_table(*texts: str) -> bool:
    """Do a table's title, heading or headers say its rows are the filer's related parties?"""
    return any(_RELATED_PARTY.search(text) for text in texts if text)


# The relationship column beside a party's name (K-IFRS 1024's kinds), read into its label when
# the two cells share a line: "호반호텔앤리조트 기타" is the party "호반호텔앤리조트".
_RELATIONSHIP_WORD = (
    r"(?:지배기업|종속기업|관계기업|공동기업|기타\s*특수관계자|기타|주요\s*경영진|최대주주)"
)
_RELATIONSHIP = re.compile(r"\s+" + _RELATIONSHIP_WORD + "$")


def party_name(label: str) -> str:
    """A related party's name without the relationship read beside it."""
    return _RELATIONSHIP.sub("", label).strip() or label


def names_account(label: str) -> bool:
    """Does a Korean label name a measure or an account ("단기대여금", "할인율(%)", "관리직 남")?"""
    text = re.sub(r"\s*\([^()]*\)\s*$", "", label.strip())
    if is_party(text) or is_movement(text):
        return False
    # "대손충당금전입", "무형자산상각": a movement of a named account names its measure
    moved = _MOVEMENT_WORD.search(text)
    if moved and len(re.findall(f"[{HANGUL_SYLLABLES}]", text[: moved.start()])) >= 2:
        return True
    return bool(_ACCOUNT_HEAD.search(text))


def korean_section(section: str) -> str:
    """A printed section as a question names it: bracket marks away ("<기타특수관계자>"), and ""
    for what names no section: the label column's header ("구분"), a dating caption ("당분기말"),
    a line holding figures ("Sgd 24,308,920 -"), a fragment ("법", "WLL")."""
    text = re.sub(r"\s+", " ", _BRACKETS.sub(" ", section)).strip(" :-")
    if not text or _LABEL_HEADER.match(text) or relative_header(text) is not None:
        return ""
    if re.search(r"\d", text):
        return ""
    if len(re.findall(f"[{HANGUL_SYLLABLES}]", text)) < 2:
        return ""
    if wrapped_half(text):
        return ""
    return text


def wrapped_half(label: str) -> bool:
    """ "지분상품 및" / "및 채무상품": half of a name wrapped over two lines, no name alone."""
    text = label.strip()
    return bool(re.match(r"^(?:및|등|또는)\s", text) or re.search(r"\s(?:및|또는)$", text))


def merged_columns(label: str) -> bool:
    """A label read across several text columns ("TEC&R 기타불입자본 자기주식": a company, then
    an account; "Malesela T.E.C, Ltd. (*) 전선제조 및 판매업 남아프리카공화국": a name, its business
    and its country): a Latin-script run and a Hangul run side by side, or a footnote mark between
    words, is no one cell's name."""
    words = label.split()
    if len(words) < 2:
        return False
    if re.search(r"\(\s*\*+\s*\d*\s*\)\s+\S", label):
        return True
    if any(
        re.fullmatch(_RELATIONSHIP_WORD, w) and is_party(" ".join(words[:k]))
        for k, w in enumerate(words)
        if 0 < k < len(words) - 1
    ):
        return True  # "호반산업 지배기업 단기 차입금": a party, its relationship, an account
    latin = [not has_hangul(w) and bool(re.search(r"[A-Za-z]", w)) for w in words]
    hangul = [has_hangul(w) for w in words]
    return (
        any(latin)
        and sum(hangul) >= 1
        and latin.index(True) < len(words) - 1
        and any(hangul[i] for i in range(latin.index(True) + 1, len(words)))
    )


# A unit in parentheses ("할인율(%)", "매출(백만원)") says how the figure is printed, not what it is.
_UNIT_ASIDE = re.compile(
    r"\s*\(\s*(?:%|％|원|천원|백만원|억원|명|개|건|톤|주|배|회|년|개월|일)\s*\)\s*$"
)

MOVEMENT_JOINER = "의 "  # "리스부채의 기초": the movement of the measure its table names
# A bare "기초" or "기말" is the balance at that end of the period the question names: said as a
# reader says it ("리스부채의 기초 잔액"), not as a line of the roll-forward ("리스부채의 기초"). A
# quantity's ("배출권 수량") is no 잔액 (an amount of money): said as printed.
_BARE_BALANCE = re.compile(r"^(?:기초|기말)$")
_QUANTITY = re.compile(r"(?:수량|개수|인원)$")


def movement_label(what: str, movement: str) -> str:
    """A roll-forward's line asked of what moves: "리스부채의 증가", "리스부채의 기초 잔액"."""
    said = movement
    if _BARE_BALANCE.match(re.sub(r"\s+", "", movement)) and not _QUANTITY.search(what):
        said = f"{movement} 잔액"
    return f"{what}{MOVEMENT_JOINER}{said}"


def printed_movement(said: str) -> str:
    """The roll-forward line `movement_label` said: "기초 잔액" as printed, "기초"."""
    head, _, tail = said.rpartition(" ")
    return head if tail == "잔액" and _BARE_BALANCE.match(re.sub(r"\s+", "", head)) else said


# "[유동자산]": a summary's section row printed in brackets; the brackets are no part of its name.
_WRAPPED = re.compile(
    r"^\s*[\[<【〈《［]\s*(?P<name>[^\[\]<>【】〈〉《》［］]+?)\s*[\]>】〉》］]\s*$"
)


def spoken_label(label: str) -> str:
    """A label as a question says it: its unit aside away ("할인율(%)" as "할인율"), the brackets
    around a section row away ("[유동자산]" as "유동자산")."""
    wrapped = _WRAPPED.match(label)
    if wrapped:
        label = wrapped["name"]
    return _UNIT_ASIDE.sub("", label).strip() or label
