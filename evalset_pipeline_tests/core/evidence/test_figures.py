"""A figure in any format or scale is one key; magnitudes tell figures of one key apart."""

from evalset_pipeline.core.evidence.figures import (
    Figure,
    answer_figure,
    digit_key,
    same_magnitude,
    scale_of_unit,
    text_figure_keys,
)


def test_the_key_is_the_significant_digits_whatever_the_format():
    assert {digit_key(t) for t in ("1,064", "$1,064", "(1,064)", "1.064", "1,064,000")} == {"1064"}
    assert digit_key("0.25%") == "25" and digit_key("1,064.50") == digit_key("1,064.5")
    assert digit_key("2,500") == "25"  # two significant digits: not specific


def test_scale_of_unit_reads_the_units_the_table_reader_writes():
    assert scale_of_unit("USD millions") == 1e6
    assert scale_of_unit("KRW 100 millions") == 1e8
    assert scale_of_unit("USD thousands") == 1e3
    assert scale_of_unit("USD") is None and scale_of_unit("%") is None and scale_of_unit("") is None
    # a Korean answer's unit as printed ("1,234 백만원", "(1,074) 백만원", "56 억원")
    assert scale_of_unit(" 백만원") == 1e6 and scale_of_unit(") 천원") == 1e3
    assert scale_of_unit(" 억원") == 1e8 and scale_of_unit(" 원") is None


def test_an_answer_figure_carries_its_unit_scale():
    f = answer_figure("1,064 (USD millions)")
    assert f == Figure("1064", 1064.0, 1e6) and f.specific
    assert answer_figure("12.5%").percent
    assert answer_figure("Cloud") is None
    assert not answer_figure("25").specific


def test_magnitudes_agree_across_scales_and_tell_other_scales_apart():
    millions = Figure("1064", 1064.0, 1e6)
    assert same_magnitude(millions, Figure("1064", 1_064_000.0, 1e3))
    assert same_magnitude(millions, Figure("1064", 1.064, 1e9))
    assert not same_magnitude(millions, Figure("1064", 1064.0, 1e3))  # a thousand times smaller
    assert same_magnitude(millions, Figure("1064", 10.64, None))  # unknown scale: the key decides
    assert not same_magnitude(millions, Figure("1064", 10.64, None, percent=True))


def test_text_keys_skip_years_and_short_figures():
    keys = text_figure_keys(
        "In 2023 net sales were $1,064 million, up 12% from 951 in 2022 (note 7)."
    )
    assert keys == ["1064", "951"]
