from evalset_pipeline.core.metadata.sidecar import read_sidecar


def test_bad_rows_reported_with_line_numbers_valid_rows_used(tmp_path):
    (tmp_path / "metadata.csv").write_text(
        "document,page,template_id,entity,metric,period,revision,language,region\n"
        "a.pdf,1,bar,Acme,revenue,FY24 Q3,original,en,emea\n"  # line 2: ok, period normalised
        "missing.pdf,1,bar,Acme,revenue,2024-Q3,,en,\n"  # line 3: unknown document
        "a.pdf,9,bar,Acme,revenue,2024-Q3,,en,\n"  # line 4: no such page
        "a.pdf,2,bar,Acme,revenue,2024-Q2,,en,\n"  # line 5: conflicts with line 6
        "a.pdf,2,bar,Acme,revenue,2024-Q1,,en,\n"  # line 6
        ",3,bar,,,,,,\n"  # line 7: empty document
        "a.pdf,3,table,,,,,,\n",  # line 8: ok, empty values allowed
        encoding="utf-8",
    )
    sc = read_sidecar(tmp_path, {"a.pdf": 3})
    assert sc.rows[("a.pdf", 1)]["period"] == "2024-Q3"
    assert sc.rows[("a.pdf", 3)] == {"template_id": "table"}
    assert ("a.pdf", 2) not in sc.rows
    assert sc.extra_columns == ("region",)
    lines = {i.line for i in sc.issues}
    assert lines == {3, 4, 6, 7}
    assert any("conflicts with line 5" in i.message for i in sc.issues)


def test_no_sidecar_is_fine(tmp_path):
    sc = read_sidecar(tmp_path)
    assert sc.rows == {} and sc.issues == []
