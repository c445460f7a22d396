from evalset_pipeline.core.questions.siblings import evidence_siblings

AXES = ["period", "metric", "entity"]


def test_same_facts_other_template_only():
    values = {
        "chart": {"period": "Q3", "metric": "rev", "entity": "A"},
        "table": {"period": "Q3", "metric": "rev", "entity": "A"},
        "chart2": {
            "period": "Q3",
            "metric": "rev",
            "entity": "A",
        },  # same template as gold: a duplicate, not a sibling
        "other_q": {"period": "Q2", "metric": "rev", "entity": "A"},
        "cover": {"period": "Q3", "metric": "", "entity": "A"},
    }
    templates = {
        "chart": "bar",
        "chart2": "bar",
        "table": "table",
        "other_q": "table",
        "cover": "cover",
    }
    assert evidence_siblings(["chart", "cover"], values, templates, AXES) == {
        "chart": ["table"],
        "cover": [],
    }
