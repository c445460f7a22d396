"""Pools: every source adds its members once, the gold never; answering pages are never capped."""

from evalset_pipeline.core.evidence.pools import (
    CAPS,
    MINED,
    PoolBuilder,
    TwinFinder,
    evidence_sources,
)
from evalset_pipeline_tests.core.evidence.drawn import index_of, statement


def test_members_keep_every_source_that_found_them_in_a_fixed_order():
    pool = PoolBuilder("gold")
    pool.add("bm25", ["a", "gold", "b"])
    pool.add(MINED, ["a"], axis="period")
    pool.add("figure", ["b", "b"])
    members = {m.unit_id: m for m in pool.members()}
    assert set(members) == {"a", "b"}
    assert members["a"].sources == (MINED, "bm25") and members["a"].axis == "period"
    assert members["b"].sources == ("figure", "bm25")


def test_caps_are_counted_and_can_be_lifted():
    pool = PoolBuilder("gold")
    many = [f"p{i}" for i in range(CAPS["twin"] + 5)]
    pool.add("twin", many)
    assert len(pool.members()) == CAPS["twin"] and pool.truncated == {"twin": 5}
    pool.add("figure", many, capped=False)
    assert len(pool.members()) == len(many)


def test_the_pages_printing_the_answer_for_its_row_are_found(tmp_path):
    index = index_of(
        {
            "gold": statement(
                tmp_path, "g", "Statements", ("2023", "2022"), {"Net sales": ("1,064", "987")}
            ),
            "next": statement(
                tmp_path, "n", "Statements", ("2024", "2023"), {"Net sales": ("1,190", "1,064")}
            ),
            "coincidence": statement(
                tmp_path, "c", "Note 7", ("2023", "2022"), {"Land": ("1,064", "1,001")}
            ),
            "rival": statement(
                tmp_path, "r", "Statements", ("2023", "2022"), {"Net sales": ("5,412", "5,100")}
            ),
        }
    )
    cells = index.matching_cells("gold", index.cells_of("gold")[0].figure)
    answering, found = evidence_sources(index, "gold", "1,064 (USD millions)", cells)
    assert answering == ["next"]
    assert set(found["figure"]) == {"next", "coincidence"}
    assert set(found["same_row"]) == {"next", "rival"}  # another filer's row for the same year


def test_a_short_figure_in_the_golds_own_row_and_period_is_the_answer(tmp_path):
    """ "850" alone is on many pages, so it finds no page by its digits; a page printing it in the
    gold's own named row for the gold's period states the answer (reading: the separate note's
    guarantee for 대한테크렌, never judged). Another row's 850, or a total's, does not."""
    index = index_of(
        {
            "gold": statement(
                tmp_path, "g", "Guarantees", ("2023", "2022"), {"Daehan Techren": ("850", "900")}
            ),
            "separate": statement(
                tmp_path, "s", "Notes", ("2023", "2022"), {"Daehan Techren": ("850", "900")}
            ),
            "other_row": statement(
                tmp_path, "o", "Notes", ("2023", "2022"), {"Land": ("850", "1,001")}
            ),
            "total": statement(tmp_path, "t", "Notes", ("2023", "2022"), {"Total": ("850", "7")}),
        }
    )
    cells = index.matching_cells("gold", index.cells_of("gold")[0].figure)
    answering, found = evidence_sources(index, "gold", "850 (USD millions)", cells)
    assert answering == ["separate"]
    assert set(found.get("figure", [])) <= {"separate"}  # nor found by its digits alone


def test_twins_are_the_same_text_or_pixels_or_nearly_every_figure():
    class Index:
        text_keys = {
            "gold": frozenset(str(100 + i) for i in range(10)),
            "copy": frozenset(str(100 + i) for i in range(10)),
            "half": frozenset(str(100 + i) for i in range(5)),
            "blank": frozenset(),
        }

        def pages_printing_text(self, key):
            return {u for u, ks in self.text_keys.items() if key in ks}

    twins = TwinFinder(
        {"gold": "t1", "copy": "t2", "half": "t3", "blank": "empty", "b2": "empty"},
        {"gold": "r1", "copy": "r2", "half": "r1", "blank": "r4", "b2": "r5"},
        Index(),
        "empty",
    )
    assert twins("gold") == ["half", "copy"]  # same pixels; nearly every figure in common
    assert twins("blank") == []  # two empty text layers are not copies of each other
