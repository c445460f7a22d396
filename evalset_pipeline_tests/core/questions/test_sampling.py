from collections import Counter

from evalset_pipeline.core.questions.sampling import stratified_sample


def test_seeded_and_stratified():
    units = [f"u{i:03d}" for i in range(100)]
    strata = ["big"] * 80 + ["small"] * 15 + ["rare"] * 5
    a = stratified_sample(units, strata, 20, seed=1)
    assert a == stratified_sample(units, strata, 20, seed=1)
    assert a != stratified_sample(units, strata, 20, seed=2)
    assert len(a) == 20
    by = Counter(strata[units.index(u)] for u in a)
    assert by == {"big": 16, "small": 3, "rare": 1}


def test_every_stratum_gets_one_when_size_allows():
    units = [f"u{i}" for i in range(50)]
    strata = ["a"] * 47 + ["b", "c", "d"]
    chosen = stratified_sample(units, strata, 5, seed=0)
    assert len(chosen) == 5
    assert {strata[units.index(u)] for u in chosen} == {"a", "b", "c", "d"}


def test_size_larger_than_population_takes_everything():
    assert stratified_sample(["x", "y"], ["a", "b"], 10, seed=0) == ["x", "y"]
