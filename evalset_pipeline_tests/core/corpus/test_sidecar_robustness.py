"""Issue 16 #6: sidecars in the wrong encoding, with huge fields, or with a million bad rows."""

from __future__ import annotations

from evalset_pipeline.core.metadata.sidecar import SHOWN_ISSUES, read_sidecar

HEADER = "document,page,template_id,entity,metric,period,revision,language\n"
ROWS = "a.pdf,1,bar,Acme,revenue,2024-Q3,,en\na.pdf,2,bar,Acme,revenue,2024-Q2,,en\n"


def test_a_utf16_sidecar_with_a_bom_is_read(tmp_path):
    (tmp_path / "metadata.csv").write_bytes(
        (HEADER + ROWS).encode("utf-16")
    )  # Excel "Unicode text": BOM + LE
    sc = read_sidecar(tmp_path, {"a.pdf": 2})
    assert sc.issues == [] and sc.rows[("a.pdf", 1)]["entity"] == "Acme" and len(sc.rows) == 2


def test_a_utf16_sidecar_without_a_bom_is_rejected_as_not_utf8(tmp_path):
    (tmp_path / "metadata.csv").write_bytes((HEADER + ROWS).encode("utf-16-le"))
    sc = read_sidecar(tmp_path, {"a.pdf": 2})
    [issue] = sc.issues
    assert "not UTF-8" in issue.message and "missing required column" not in issue.message
    assert sc.rows == {}


def test_a_200kb_closed_field_is_reported_and_reading_goes_on(tmp_path):
    big = "x" * 200_000
    (tmp_path / "metadata.csv").write_text(
        HEADER + f'a.pdf,1,bar,"{big}",,,,\n' + ROWS, encoding="utf-8"
    )
    sc = read_sidecar(tmp_path, {"a.pdf": 2})
    [issue] = sc.issues
    assert issue.line == 2 and "field larger than field limit" in issue.message
    assert set(sc.rows) == {("a.pdf", 1), ("a.pdf", 2)}  # the later rows (lines 3-4) still count


def test_a_huge_sidecar_of_bad_rows_is_bounded_and_summarised(tmp_path):
    n = 200_000  # ~8 MB; issue 16 measured 817 s / 2.2 GB / 996,069 warnings for a million such rows
    with open(tmp_path / "metadata.csv", "w", encoding="utf-8") as f:
        f.write(HEADER + ROWS)
        for i in range(n):
            f.write(
                f"missing/doc-{i}.pdf,1,bar,Acme,revenue,2024-Q3,,en\n"
                if i % 2
                else f"a.pdf,x{i},bar,,,,,\n"
            )
    sc = read_sidecar(tmp_path, {"a.pdf": 2})
    assert len(sc.rows) == 2
    # Bounded by count, not by a clock: SHOWN_ISSUES issue objects and one summary, whatever n is
    # (a million such rows used to make 996,069 warnings, 2.2 GB and 817 s).
    assert len(sc.issues) == SHOWN_ISSUES + 1
    summary = sc.issues[-1].message
    assert f"{n - SHOWN_ISSUES:,} more issue(s)" in summary
    assert (
        "document not in the corpus: 99,975" in summary and "page not a number: 99,975" in summary
    )
    assert (
        sc.issues[0].line == 4 and "not a number" in sc.issues[0].message
    )  # the first ones, with their lines
