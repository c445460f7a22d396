"""Row labels wrapped over several lines with the row's figures on one of them.

Performance tables and other tables with long row names set each name in a narrow column, wrapped
over three to five lines, and print the row's figures once, vertically centred on the name: on its
first line, a middle line or a line of their own between two of its lines. Line by line that reads
as label-only rows (taken for section headings) around a value row with a fragment of a label or
none. Such a table is printed in bands: the lines of one row are set at the text's own pitch and
rows are set apart by a wider gap. A band holding exactly one row of figures is one row whose label
is every label line of the band, top to bottom.

Statements are not read this way: their lines are set at one pitch (no bands), a band of a
statement holds several rows of figures, and its parents ("Operating expenses:") end with a colon
or sit left of their sub-items. The rule applies only to a table where some band has label lines
both above and below its figures, which a statement's parent and sub-items never have.
"""

from __future__ import annotations

import statistics

from evalset_pipeline.core.reader.table_captions import without_unprinted
from evalset_pipeline.core.reader.table_cells import MEASURE_CODE, parse_value

# (raw label, indent, cells per column, vertical centre) as the table reader collects them.
RawRow = tuple[str, float, list[str | None], float]


# The gap between two rows is wider than the pitch of one row's lines by at least this much.
_BAND_GAP = 1.3


def _valued(row: RawRow) -> bool:
    return any(parse_value(c) is not None for c in row[2])


def _label_only(row: RawRow) -> bool:
    """A line of the name: a label and no figure (words another column wraps over the name's
    lines, a target's "Establish" / "Baseline", are no figure)."""
    return bool(row[0]) and all(c is None or not any(ch.isdigit() for ch in c) for c in row[2])


def _bands(rows: list[RawRow]) -> list[list[RawRow]] | None:
    """The rows split where the gap between lines is clearly wider than their pitch; None when the
    lines are set at one pitch (no bands)."""
    gaps = [b[3] - a[3] for a, b in zip(rows, rows[1:], strict=False)]
    if len(gaps) < 2:
        return None
    # The text's own pitch is the gap between two label lines in a row (a line of figures
    # centred between two of a name's lines sits half a pitch from each): the smallest such gaps.
    text_gaps = sorted(
        [
            b[3] - a[3]
            for a, b in zip(rows, rows[1:], strict=False)
            if _label_only(a) and _label_only(b) and b[3] > a[3]
        ]
        + _pitches_across_figures(rows)
    )
    near = [g for g in text_gaps if g <= 1.3 * text_gaps[0]] if text_gaps else []
    pitch = statistics.median(near) if near else statistics.median(gaps)
    if pitch <= 0:
        return None
    bands: list[list[RawRow]] = [[rows[0]]]
    for gap, row in zip(gaps, rows[1:], strict=False):
        if gap > _BAND_GAP * pitch:
            bands.append([row])
        else:
            bands[-1].append(row)
    return bands if len(bands) > 1 or len(rows) <= 6 else None


def _pitches_across_figures(rows: list[RawRow]) -> list[float]:
    """The pitch of a name read across its row of figures: a line of figures alone (no words but
    the row's code) centred between two of the name's lines sits half a pitch from each, so the
    name's pitch is the two gaps together. (A band of three lines has no two name lines side by
    side: without this its pitch would be read off the gap between two rows.)"""
    out = []
    for a, b, c in zip(rows, rows[1:], rows[2:], strict=False):
        up, down = b[3] - a[3], c[3] - b[3]
        if not (_label_only(a) and _label_only(c) and _valued(b)) or min(up, down) <= 0:
            continue
        if abs(up - down) <= 0.2 * max(up, down) and not MEASURE_CODE.sub("", b[0]).strip():
            out.append(up + down)
    return out


def _wrapped_band(band: list[RawRow]) -> bool:
    """One row of figures with label lines both above and below it, all set at one indent and none
    a heading ending with a colon: a name wrapped around its figures."""
    valued = [k for k, r in enumerate(band) if _valued(r)]
    if len(valued) != 1:
        return False
    k = valued[0]
    others = [r for j, r in enumerate(band) if j != k]
    if not all(_label_only(r) or not r[0] for r in others):
        return False
    labels = [r for r in others if r[0]]
    if any(r[0].rstrip().endswith(":") for r in labels):
        return False
    # (a line led by the measure's code starts in the code's column, left of the name's)
    indents = [r[1] for r in labels if not MEASURE_CODE.match(r[0])]
    if indents and max(indents) - min(indents) > 3.0:
        return False  # lines at different indents: a parent and its sub-item, not one name
    return any(_label_only(r) for r in band[:k]) and any(_label_only(r) for r in band[k + 1 :])


def _merged(band: list[RawRow]) -> RawRow:
    """The band as one row: every label line top to bottom, the figures of its one valued line."""
    valued = next(r for r in band if _valued(r))
    parts = []
    for r in band:
        # the measure's code and the unprinted cells ("N/A*", "-*") left of the first figure are
        # read into whichever line they sit on; neither is part of the name
        text = without_unprinted(MEASURE_CODE.sub("", r[0])).strip()
        if text:
            parts.append(text)
    indent = min(r[1] for r in band if r[0].strip()) if parts else valued[1]
    return (" ".join(parts), indent, valued[2], valued[3])


def merge_banded_labels(rows: list[RawRow], trailing: list[RawRow]) -> list[RawRow]:
    """`rows` with each band that is one wrapped row merged into it. `trailing` are label-only lines
    right below the last row of figures (the rest of its name); they are kept only when the table
    is read in bands."""
    candidate = rows + trailing
    bands = _bands(candidate)
    if bands is None or not any(_wrapped_band(b) for b in bands):
        return rows
    out: list[RawRow] = []
    for band in bands:
        valued = [r for r in band if _valued(r)]
        if len(valued) == 1 and all(_label_only(r) or r is valued[0] or not r[0] for r in band):
            out.append(_merged(band))
        else:
            out.extend(r for r in band if r not in trailing)
    return out
