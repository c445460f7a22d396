"""Bad sidecar rows are reported with their line and skipped; every valid row is still used."""

from __future__ import annotations

import unicodedata

from evalset_pipeline.core.metadata.sidecar import read_sidecar

HEADER = b"document,page,template_id,entity,metric,period,revision,language\n"


def _issues(sc) -> dict[int, str]:
    return {i.line: i.message for i in sc.issues}


def test_bad_bytes_extra_fields_duplicates_and_odd_headers(tmp_path):
    (tmp_path / "metadata.csv").write_bytes(
        b"document,page,template_id,entity,metric,peroid,,region,region\n"  # 1: misspelt, unnamed, twice
        b"a.pdf,1,bar,Acme,revenue,,,emea,emea\n"  # 2: ok
        b"a.pdf,2,bar,Caf\xe9,revenue,,,,\n"  # 3: Latin-1 byte: skipped, the file is still read
        b"a.pdf,3,bar,Acme,revenue,,,,,surplus,more\n"  # 4: two fields beyond the header: used, reported
        b"a.pdf,1,bar,Acme,revenue,,,emea,emea\n"  # 5: same as line 2
        b"a.pdf,4,,,,,,,\n"  # 6: no values
    )
    sc = read_sidecar(tmp_path, {"a.pdf": 4})
    issues = _issues(sc)
    assert set(issues) == {1, 3, 4, 5, 6}, sc.issues
    header = [i.message for i in sc.issues if i.line == 1]
    assert any("did you mean 'period'" in m for m in header)
    assert any("column 7 has no name" in m for m in header)
    assert any("'region' appears more than once" in m for m in header)
    assert "not valid UTF-8" in issues[3] and "beyond the header" in issues[4]
    assert "same as line 2" in issues[5] and "no values" in issues[6]
    assert set(sc.rows) == {("a.pdf", 1), ("a.pdf", 3)}
    assert sc.rows[("a.pdf", 3)]["template_id"] == "bar"
    assert "" not in sc.extra_columns and "region" in sc.extra_columns


def test_an_unparseable_row_costs_that_row_not_the_rest_of_the_file(tmp_path):
    """Issue 16 #6: a runaway quoted field (over csv's 128 KiB field limit) used to drop every later row."""
    (tmp_path / "metadata.csv").write_bytes(
        HEADER
        + b"a.pdf,1,bar,,,,,\n"
        + b'a.pdf,2,"'
        + b"x" * 200_000
        + b"\n"
        + b"a.pdf,3,bar,,,,,\n"
    )
    sc = read_sidecar(tmp_path, {"a.pdf": 3})
    assert set(sc.rows) == {("a.pdf", 1), ("a.pdf", 3)}
    [issue] = sc.issues
    assert (
        issue.line == 3 and "cannot parse CSV" in issue.message and "row skipped" in issue.message
    )


def test_rows_may_name_any_path_of_a_duplicate_and_any_unicode_form(tmp_path):
    nfc = unicodedata.normalize("NFC", "réport.pdf")
    nfd = unicodedata.normalize("NFD", "réport.pdf")
    (tmp_path / "metadata.csv").write_text(
        "document,page,template_id\n"
        f"copy.pdf,1,bar\n"  # the second name of a duplicate
        f"{nfd},1,table\n",  # the file is stored NFC, the sidecar was written NFD
        encoding="utf-8",
    )
    known = {"orig.pdf": 1, "copy.pdf": 1, nfc: 1}
    sc = read_sidecar(
        tmp_path, known, aliases={"orig.pdf": "orig.pdf", "copy.pdf": "orig.pdf", nfc: nfc}
    )
    assert sc.issues == []
    assert sc.rows == {("orig.pdf", 1): {"template_id": "bar"}, (nfc, 1): {"template_id": "table"}}


def test_rows_for_rejected_documents_say_so(tmp_path):
    (tmp_path / "broken.pdf").write_bytes(b"")
    (tmp_path / "metadata.csv").write_text(
        "document,page,template_id\nbroken.pdf,1,x\ngone.pdf,1,x\n", encoding="utf-8"
    )
    issues = _issues(read_sidecar(tmp_path, {}))
    assert "was not taken in" in issues[2] and "is not in the corpus" in issues[3]
