"""The text primitives every reader shares (core/pagetext/text.py)."""

from __future__ import annotations

import re

from evalset_pipeline.core.pagetext.text import (
    HANGUL_LETTERS,
    HANGUL_SYLLABLES,
    clean_text,
    figure_text,
    has_hangul,
    locale_decimals,
    locale_number,
    number_value,
    parse_number,
)


def test_clean_text_is_what_a_reader_sees():
    assert clean_text("  Net\u00a0 sales\u200b\n(ｕｓ$) ") == "Net sales (us$)"
    assert clean_text("Soft\u00adware", casefold=True) == "software"
    assert clean_text("ACME Group", casefold=True) == clean_text("acme  group", casefold=True)
    # the Korean list dot "ㆍ" (which NFKC makes a conjoining vowel) reads as the middle dot
    assert clean_text("종속기업\u318d관계기업") == "종속기업·관계기업"
    assert clean_text("종속기업\u119e관계기업") == clean_text("종속기업\u318d관계기업")


def test_figure_text_keeps_lines_and_reads_the_unicode_minus():
    assert figure_text("Revenue\n\u22121,234") == "Revenue\n-1,234"
    assert figure_text(None) == ""


def test_hangul_syllables_and_letters_differ_only_by_the_jamo():
    assert has_hangul("매출액 1,234") and not has_hangul("Revenue") and not has_hangul("ㄱㄴ")
    assert re.fullmatch(f"[{HANGUL_LETTERS}]+", "ㄱ매출") and not re.fullmatch(
        f"[{HANGUL_SYLLABLES}]+", "ㄱ매출"
    )


def test_numbers_as_printed_and_as_typed():
    assert parse_number("(1,234.5)") == -1234.5 and parse_number("−8.3%") == -8.3
    assert parse_number("Cloud") is None
    assert number_value("1,234,567.25") == 1234567.25
    assert locale_number("1.234,56") == locale_number("1,234.56") == 1234.56
    assert locale_number("1,5") == 1.5 and locale_number("1,500") == 1500.0
    assert (locale_decimals("1.234,56"), locale_decimals("1,500"), locale_decimals("2.5")) == (
        2,
        0,
        1,
    )
