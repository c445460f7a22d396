import numpy as np

from evalset_pipeline.core.negatives.mining import FALLBACK_AXIS, MiningInput, mine_hard_negatives

AXES = ["period", "metric", "entity"]


def _grid():
    """2 templates x 2 entities x 2 metrics x 3 periods, random unit vectors."""
    rows = []
    for t in ("bar", "table"):
        for e in ("A", "B"):
            for m in ("rev", "inc"):
                for p in ("q1", "q2", "q3"):
                    rows.append((t, e, m, p))
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(len(rows), 8)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    ids = [f"u{i}" for i in range(len(rows))]
    data = MiningInput(
        unit_ids=ids,
        templates=[r[0] for r in rows],
        axis_values={
            "entity": [r[1] for r in rows],
            "metric": [r[2] for r in rows],
            "period": [r[3] for r in rows],
        },
        embeddings=emb,
        render_hashes=ids,
        text_hashes=ids,
    )
    return rows, ids, data


def test_every_negative_shares_template_and_differs_on_exactly_its_axis():
    rows, ids, data = _grid()
    result = mine_hard_negatives(data, AXES, k=2)
    by_id = dict(zip(ids, rows, strict=False))
    assert result.negatives
    for n in result.negatives:
        g, d = by_id[n.unit_id], by_id[n.negative_unit_id]
        assert g[0] == d[0]
        differing = [a for a, i in (("entity", 1), ("metric", 2), ("period", 3)) if g[i] != d[i]]
        assert differing == [n.axis]
    # period pools hold 2 other periods; metric and entity pools hold 1 page each.
    counts = {}
    for n in result.negatives:
        counts.setdefault(n.unit_id, {}).setdefault(n.axis, 0)
        counts[n.unit_id][n.axis] += 1
    assert all(c == {"period": 2, "metric": 1, "entity": 1} for c in counts.values())
    assert result.empty_pools == {"period": 0, "metric": 0, "entity": 0}


def test_nearest_by_appearance_comes_first():
    rows, ids, data = _grid()
    emb = data.embeddings
    result = mine_hard_negatives(data, AXES, k=1)
    idx = {u: i for i, u in enumerate(ids)}
    for n in (x for x in result.negatives if x.axis == "period"):
        g = idx[n.unit_id]
        pool = [i for i, r in enumerate(rows) if r[:3] == rows[g][:3] and r[3] != rows[g][3]]
        best = max(pool, key=lambda i: float(emb[g] @ emb[i]))
        assert n.negative_unit_id == ids[best]


def test_duplicates_of_the_gold_are_never_negatives():
    rows, ids, data = _grid()
    # u1 is a byte-identical copy of u0 (same render hash) on another "period".
    data.render_hashes = list(data.render_hashes)
    data.render_hashes[1] = data.render_hashes[0]
    result = mine_hard_negatives(data, AXES, k=5)
    pairs = {(n.unit_id, n.negative_unit_id) for n in result.negatives}
    assert ("u0", "u1") not in pairs and ("u1", "u0") not in pairs


def test_fallback_to_template_siblings_when_axis_pools_are_empty():
    ids = ["a", "b", "c", "lonely"]
    emb = np.eye(4, dtype=np.float32)
    data = MiningInput(
        ids, ["t", "t", "t", "solo"], {a: ["", "", "", ""] for a in AXES}, emb, ids, ids
    )
    result = mine_hard_negatives(data, AXES, k=2)
    assert {n.axis for n in result.negatives} == {FALLBACK_AXIS}
    assert {n.unit_id for n in result.negatives} == {"a", "b", "c"}
    assert result.lonely_pages == ["lonely"]
    assert result.fallback_pages == 3


def test_revision_axis_finds_a_restatement_the_three_axes_cannot():
    ids = ["orig", "restated", "other_q"]
    emb = np.eye(3, dtype=np.float32)
    values = {
        "period": ["q2", "q2", "q3"],
        "metric": ["rev"] * 3,
        "entity": ["A"] * 3,
        "revision": ["original", "restated", "original"],
    }
    data = MiningInput(ids, ["bar"] * 3, values, emb, ids, ids)
    three = mine_hard_negatives(data, AXES, k=2)
    assert not any({n.unit_id, n.negative_unit_id} == {"orig", "restated"} for n in three.negatives)
    four = mine_hard_negatives(data, AXES + ["revision"], k=2)
    assert any(
        n.unit_id == "orig" and n.negative_unit_id == "restated" and n.axis == "revision"
        for n in four.negatives
    )
