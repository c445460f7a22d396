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


def test_sample_size_is_honoured_with_more_templates_than_slots():
    units = [f"u{i:03d}" for i in range(300)]
    strata = [
        f"t{i % 173}" for i in range(300)
    ]  # 173 templates, 80 slots (the reported 173-for-80 case)
    chosen = stratified_sample(units, strata, 80, seed=3)
    assert len(chosen) == 80 == len({strata[units.index(u)] for u in chosen})
    assert chosen == stratified_sample(units, strata, 80, seed=3)


def test_one_long_document_does_not_take_the_slots():
    # one 3,000-page file and 20 short ones, all pages of one template
    units = [f"big-{i:04d}" for i in range(3000)] + [
        f"d{j:02d}-{i}" for j in range(20) for i in range(10)
    ]
    docs = ["big"] * 3000 + [f"d{j:02d}" for j in range(20) for _ in range(10)]
    chosen = stratified_sample(units, ["t"] * len(units), 80, seed=1, groups=docs)
    per_doc = Counter(docs[units.index(u)] for u in chosen)
    assert len(chosen) == 80 and len(per_doc) == 21
    assert max(per_doc.values()) <= 4  # spread: each document gives one before any gives a second
