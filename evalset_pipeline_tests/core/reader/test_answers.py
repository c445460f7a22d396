"""Answer agreement: normalise, then numbers as numbers and text by ANLS >= 0.5."""

from __future__ import annotations

import pytest

from evalset_pipeline.core.reader.answers import (
    anls,
    answers_agree,
    normalize_answer,
    parse_quantity,
)


@pytest.mark.parametrize(
    "a, b",
    [
        ("1.234,56", "1,234.56"),
        ("1234.56", "1,234.56"),
        ("1,234.5 USD m", "1234.5"),  # a missing unit agrees with any unit
        ("1,234.5 USD m", "1,234.5 million USD"),
        ("$1,234.5m", "1,234.5 USD m"),
        ("+4.2%", "4.2%"),
        ("12,345억원", "12345 억원"),
        ("3,210명", "3,210 employees"),
        ("Cloud", " cloud. "),
        ("the Cloud segment", "Cloud"),
        ("반도체 부문", "반도체"),
        ("Ｃｌｏｕｄ", "Cloud"),  # NFKC full-width
        ("Warehousing", "Warehouse"),  # ANLS 0.73
        ("14.1 (USD billions)", "14,082 (USD millions)"),  # one amount, rounded in prose
        ("6.1 (USD billions)", "6,065 (USD millions)"),
        ("1,234.5 (KRW millions)", "1.2345 (KRW billions)"),
        ("(431) (USD millions)", "-431 (USD millions)"),  # parentheses: a negative amount
        ("$(431)", "-431 USD"),
        ("(14.1) (USD billions)", "(14,082) (USD millions)"),
        # a Korean answer's unit as the page prints it is the writer's canonical unit
        ("116,731 백만원", "116,731 (KRW millions)"),
        ("(1,074) 백만원", "(1,074) (KRW millions)"),
        ("4,251,268 천원", "4,251,268 (KRW thousands)"),
    ],
)
def test_agree(a: str, b: str) -> None:
    assert answers_agree(a, b)
    assert answers_agree(b, a)


@pytest.mark.parametrize(
    "a, b",
    [
        ("1,234.5 USD m", "1,284.5 USD m"),  # close as strings, different facts
        ("-4.2%", "4.2%"),
        ("1,234.5 USD m", "1,234.5 employees"),
        ("Cloud", "Devices"),
        ("반도체", "가전"),
        ("Cloud", "1,234"),
        ("Cloud", None),
        ("", "Cloud"),
        ("2,239 (USD millions)", "2,240 (USD millions)"),  # same scale and precision: two facts
        ("6 (USD billions)", "6,065 (USD millions)"),  # one digit stands for too little
        ("12%", "12.3%"),  # percentages are never rounded into each other
        ("14.1 (USD billions)", "14,082 (EUR millions)"),
        # negatives in parentheses spell alike: they were agreeing by string similarity
        ("(431) (USD millions)", "(985) (USD millions)"),
        ("(431) (USD millions)", "431 (USD millions)"),
        ("(12.5%)", "(17.5%)"),
        ("116,731 백만원", "116,731 (KRW thousands)"),  # another scale: another amount
    ],
)
def test_disagree(a, b) -> None:
    assert not answers_agree(a, b)
    assert not answers_agree(b, a)


def test_parts() -> None:
    assert normalize_answer("  The  CLOUD segment. ") == "the cloud segment"
    q = parse_quantity("1,234.5 USD m")
    assert q is not None and q.value == 1234.5 and q.unit == "usd m"
    assert parse_quantity("Cloud") is None
    assert parse_quantity("1.234.567") is not None and parse_quantity("1.234.567").value == 1234567
    assert anls("abc", "abc") == 1.0 and anls("abc", "xyz") == 0.0
