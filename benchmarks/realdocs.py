"""`python -m benchmarks realdocs [--corpus DIR] [--data-dir D] [--sample-size N]`: real filings, end to end.

Builds DIR (default ../shared/realdocs/financebench-dev) with no sidecar through Dagster, every
asset except the `scores` group, and prints one JSON line measured against the truth files that
sit beside the PDFs (`documents.csv`, `statements.csv`; see that folder's README):

  pages, seconds, pages_per_s        the build (renders reused when --data-dir already has them)
  entity_accuracy, period_accuracy   per page, against the document's registrant and fiscal period
                                     (entity compared up to case and punctuation; a document with
                                     no reporting period, such as an 8-K, is right when empty)
  period_end_accuracy                per document, against the cover's period end
  subject_accuracy, wrong_subjects   per document whose truth has a `subject` ("청년일자리창출지원
                                     1043-301", "재정융자사업"): the name up to spaces and
                                     punctuation, and the code where the truth has one
  statements                         pairwise precision/recall of statement pages sharing a
                                     template, overall and by statement type; where the truth has a
                                     `basis` column, a statement is its type and basis (`keyed_by`)
  largest_template_share, single_page_template_share
  pool_share                         per axis, the share of gold-eligible pages (a template and a
                                     value on that axis) whose pool is non-empty
  questions                          at --sample-size N (default 300): the funnel (sampled, written,
                                     kept, dropped and skip reasons) and the automatic audit of the
                                     kept main items (`audit`: answer-on-page, leak, units)
  completeness, pooling              pages that print a kept answer for its row and period and were
                                     never judged (goal 0), answered elsewhere, pool sizes and each
                                     source's sufficient pages
  lookalikes                         main items with a distractor one axis away, per axis

DIR may be the folder holding `pdfs/` and the truth files, or the PDF folder itself (truth then
read from its parent). It must not hold a metadata.csv: this measures extraction without one.
"""

from __future__ import annotations

import csv
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalset_pipeline.core.judging.base import PageContext

DEFAULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "realdocs" / "financebench-dev"


def _folders(corpus: str | Path | None) -> tuple[Path, Path]:
    root = Path(corpus or DEFAULT).resolve()
    pdfs = root / "pdfs" if (root / "pdfs").is_dir() else root
    truth = root if (root / "documents.csv").exists() else pdfs.parent
    if (pdfs / "metadata.csv").exists():
        raise ValueError(
            f"{pdfs / 'metadata.csv'} exists: this benchmark measures extraction without a sidecar"
        )
    if not (truth / "documents.csv").exists():
        raise ValueError(
            f"no documents.csv beside {pdfs}: the benchmark needs the truth files (see its docstring)"
        )
    return pdfs, truth


def _fiscal_label(value: str) -> str:
    """documents.csv's `FY2023 Q2` / `FY2018` / `FY2023 H1` as the pipeline's canonical label."""
    from evalset_pipeline.core.pagetext.periods import normalize_period

    return (normalize_period(value) or value) if value else ""


def _pairs(groups: dict[tuple[str, int], str], truth: dict[tuple[str, int], str]) -> dict[str, Any]:
    """Pairwise precision/recall of "same template" against "same statement type"."""
    keys = sorted(k for k in truth if k in groups)
    same_t = same_s = both = 0
    by_type: dict[str, list[int]] = defaultdict(
        lambda: [0, 0, 0]
    )  # same-type pairs, of them same template; template pairs with this type
    for a, b in combinations(keys, 2):
        st, tt = truth[a] == truth[b], groups[a] == groups[b] and bool(groups[a])
        same_s += st
        same_t += tt
        both += st and tt
        if st:
            by_type[truth[a]][0] += 1
            by_type[truth[a]][1] += tt
        if tt:
            by_type[truth[a]][2] += 1
            if truth[b] != truth[a]:
                by_type[truth[b]][2] += 1
    return {
        "pages": len(keys),
        "precision": round(both / same_t, 4) if same_t else None,
        "recall": round(both / same_s, 4) if same_s else None,
        "by_type": {
            t: {
                "recall": round(v[1] / v[0], 4) if v[0] else None,
                "precision": round(v[1] / v[2], 4) if v[2] else None,
            }
            for t, v in sorted(by_type.items())
        },
    }


def _statement_truth(path: Path) -> tuple[dict[tuple[str, int], str], str]:
    """(document, page) -> the statement a page belongs to, and what that is keyed by. Where the
    truth has a `basis` column (filings printing consolidated and separate statements), the same
    statement is the same type AND basis: a consolidated balance sheet and a separate one are two
    statements (each other's one-axis twins), so a template joining them is a wrong pair."""
    rows = list(csv.DictReader(open(path, encoding="utf-8")))
    by_basis = bool(rows) and "basis" in rows[0]
    truth = {
        (r["document"], int(r["page"])): (
            f"{r['statement']}:{r['basis']}" if by_basis and r["basis"] else r["statement"]
        )
        for r in rows
    }
    return truth, "statement,basis" if by_basis else "statement"


def _subject_ok(read: str, truth: str) -> bool:
    """The truth's "name code" ("청년일자리창출지원 1043-301") against the read subject
    ("청년일자리창출지원(1043-301)"): the name up to spaces and punctuation, the code where the
    truth has one."""
    from evalset_pipeline.core.pagetext.subjects import split_code, subject_key

    (name, code), (want, want_code) = split_code(read), split_code(truth)
    return subject_key(name) == subject_key(want) and (not want_code or code == want_code)


def measure(data_dir: Path, truth_dir: Path) -> dict[str, Any]:
    """The page-understanding figures of a finished build in `data_dir`."""
    import pyarrow.parquet as pq

    from evalset_pipeline.core.metadata.registrant import entity_key

    tables = data_dir / "artifacts" / "tables"
    renders = pq.read_table(tables / "page_renders.parquet").to_pylist()
    meta = {r["unit_id"]: r for r in pq.read_table(tables / "page_metadata.parquet").to_pylist()}
    templates = {
        r["unit_id"]: r["template_id"]
        for r in pq.read_table(tables / "template_groups.parquet").to_pylist()
    }
    facts = {r["path"]: r for r in pq.read_table(tables / "document_facts.parquet").to_pylist()}
    docs = {
        r["document"]: r
        for r in csv.DictReader(open(truth_dir / "documents.csv", encoding="utf-8"))
    }
    statements, keyed_by = _statement_truth(truth_dir / "statements.csv")
    unit_of = {(Path(r["document_path"]).name, r["page_number"]): r["unit_id"] for r in renders}

    entity_ok = period_ok = judged = 0
    wrong_entities: Counter[str] = Counter()
    wrong_periods: Counter[str] = Counter()
    for r in renders:
        doc = docs.get(Path(r["document_path"]).name)
        m = meta.get(r["unit_id"])
        if doc is None or m is None:
            continue
        judged += 1
        if entity_key(m["entity"]) == entity_key(doc["company"]):
            entity_ok += 1
        else:
            wrong_entities[f"{m['entity']!r} for {doc['company']!r}"] += 1
        if m["period"] == _fiscal_label(doc["fiscal_period"]):
            period_ok += 1
        else:
            wrong_periods[
                f"{m['period']!r} for {doc['fiscal_period']!r} ({r['document_path']})"
            ] += 1
    end_ok = sum(
        1
        for name, d in docs.items()
        if facts.get(name, {}).get("period_end", "") == d["period_end"]
    )

    with_subject = {name: d for name, d in docs.items() if d.get("subject")}
    wrong_subjects = {
        name: facts.get(name, {}).get("subject") or ""
        for name, d in with_subject.items()
        if not _subject_ok(facts.get(name, {}).get("subject") or "", d["subject"])
    }

    sizes = Counter(t for t in templates.values() if t)
    total = sum(sizes.values()) or 1
    groups = {key: templates.get(unit_of[key], "") for key in statements if key in unit_of}

    negatives = pq.read_table(tables / "hard_negatives.parquet").to_pylist()
    served: dict[str, set[str]] = defaultdict(set)
    for n in negatives:
        served[n["axis"]].add(n["unit_id"])
    pool_share = {}
    for axis in ("period", "metric", "entity"):
        eligible = [
            u
            for u, m in meta.items()
            if templates.get(u) and sizes[templates[u]] > 1 and m.get(axis)
        ]
        pool_share[axis] = (
            round(sum(u in served[axis] for u in eligible) / len(eligible), 4) if eligible else None
        )
    return {
        "documents": len(docs),
        "judged_pages": judged,
        "entity_accuracy": round(entity_ok / judged, 4) if judged else None,
        "period_accuracy": round(period_ok / judged, 4) if judged else None,
        "period_end_accuracy": round(end_ok / len(docs), 4) if docs else None,
        "subject_accuracy": (
            round(1 - len(wrong_subjects) / len(with_subject), 4) if with_subject else None
        ),
        "wrong_subjects": wrong_subjects,
        "wrong_entities": dict(wrong_entities.most_common(5)),
        "wrong_periods": dict(wrong_periods.most_common(5)),
        "statements": {**_pairs(groups, statements), "keyed_by": keyed_by},
        "templates": len(sizes),
        "largest_template_share": round(max(sizes.values()) / total, 4) if sizes else None,
        "single_page_template_share": round(sum(1 for s in sizes.values() if s == 1) / total, 4),
        "pool_share": pool_share,
    }


def _number(text: str) -> str:
    """The figure of an answer as printed ("1,234" of "1,234 (USD millions)"), "" if none."""
    import re

    m = re.search(r"\(?-?\d[\d,]*(?:\.\d+)?\)?%?", text or "")
    return m.group(0) if m else ""


def _prints(text: str, number: str) -> bool:
    """Does `text` print the figure `number` as a whole token ("1,234" not inside "21,234.5")?"""
    import re

    figure = re.escape(number.strip("()%"))
    return re.search(rf"(?<![\d.,]){figure}(?![\d]|[.,]\d)", text) is not None


def _check_unit(
    answer: str,
    page_text: str,
    checked: int,
    ok: int,
    words: list | None = None,
    document_units: set[str] | None = None,
) -> tuple[int, int]:
    """Does the answer's unit agree with what the page states? Independent of the table reader:
    "(USD millions)" needs the page to say millions and dollars; "(USD)" a per-share row. A
    Korean answer is read against the unit line nearest above where the page prints its figure
    (`words`, the layer's word boxes; else the text's line order), or, the page stating none, the
    money its document's unit lines name (`document_units`): see `_korean_unit_agrees`."""
    import re

    m = re.search(r"\(([A-Z]{3})(?: (\d+ )?(thousands|millions|billions))?\)$", answer)
    if not m and re.search(r"[가-힣]", page_text):
        verdict = _korean_unit_agrees(answer, _lines_of(page_text, words), document_units)
        return (checked, ok) if verdict is None else (checked + 1, ok + verdict)
    if not m:
        return checked, ok
    text = page_text.casefold()
    money = "$" in page_text or m.group(1).casefold() in text or "dollar" in text
    scale = m.group(3)
    agrees = money and (
        scale.rstrip("s") in text if scale else "per share" in text or "per common share" in text
    )
    return checked + 1, ok + agrees


_KO_MONEY = r"(?:조|십억|억|백만|만|천)?(?:원|달러)"
_KO_UNIT_LINE = r"\(\s*단\s*위\s*[:：]\s*((?:[^()]|\([^()]*\))*?)\s*\)"


def _money_stated(texts: list[str]) -> set[str]:
    """The money units the unit lines of these texts name ("백만원" of "(단위: 백만원, %)")."""
    import re

    return {
        u
        for text in texts
        for found in re.findall(_KO_UNIT_LINE, text)
        for part in found.split(",")
        if re.fullmatch(_KO_MONEY, u := re.sub(r"\([^()]*\)|\s", "", part))
    }


def _lines_of(page_text: str, words: list | None) -> list[list[str]]:
    """The page's lines top to bottom, each its words left to right."""
    if not words:
        return [line.split() for line in page_text.splitlines()]
    rows: dict[int, list[tuple[float, str]]] = {}
    for w in words:
        rows.setdefault(round(float(w[1]) / 3), []).append((float(w[0]), str(w[4])))
    return [[t for _, t in sorted(rows[y])] for y in sorted(rows)]


def _korean_unit_agrees(
    answer: str, lines: list[list[str]], document_units: set[str] | None = None
) -> bool | None:
    """A Korean answer's unit against the page: the unit line ("(단위 : 백만원)", "(단위 : 톤,
    백만원)") nearest above a place the page prints the figure is its table's. Money ("1,234
    백만원") must be a unit that line names, and a line naming no money ("(단위 : 사)") makes a
    money answer wrong; with no line above, the page must print the unit after a figure ("95백만원")
    or in a unit line, or every unit line of its document name that money and no other. A bare
    figure under a line naming only counts or measures ("(단위 : 톤(tCO2-eq))") is wrong: it
    needs that unit. A count ("398 명") agrees where that line names
    its counter ("사" for "개사"); under a money line it is a count column's, which only the
    column's header says: not checked. None: nothing the page states can check it."""
    import re

    m = re.fullmatch(r"\s*(\(?-?[\d,.]+\)?)(%?)\s*(\S*)\s*", answer)
    if m is None:
        return None
    figure, percent, unit = m[1].strip("()"), m[2], m[3]
    if percent:
        return None  # a percentage states itself
    statements: list[tuple[int, list[str]]] = []
    above: list[list[str] | None] = []
    for k, line in enumerate(lines):
        text = " ".join(line)
        for found in re.findall(_KO_UNIT_LINE, text):
            units = [re.sub(r"\([^()]*\)", "", u).strip() for u in found.split(",")]
            statements.append((k, [u for u in units if u]))
        if any(w.strip("()%") == figure for w in line):
            above.append(statements[-1][1] if statements else None)
    if not above:
        return None
    said = [u for u in above if u is not None]
    money = re.fullmatch(_KO_MONEY, unit) is not None
    if money:
        if not said:
            page = "".join("".join(line) for line in lines)
            printed = re.search(rf"(?:\d|단위[:：]?|\()(?<![조억만천십]){unit}", page) is not None
            return printed or document_units == {unit}
        return any(unit in units for units in said)
    counted = [units for units in said if not any(re.fullmatch(_KO_MONEY, u) for u in units)]
    if not counted:
        return None
    if not unit:
        return False  # "35,684" under "(단위 : 톤)": the figure needs its unit
    spoken = {"개사": "사"}.get(unit, unit)
    return any(unit in units or spoken in units for units in counted) or None


def _page_texts(data_dir: Path) -> dict[str, list[str]]:
    """document sha256 -> its pages' text layer paths ({} without the table)."""
    import pyarrow.parquet as pq

    path = Path(data_dir) / "artifacts" / "tables" / "page_renders.parquet"
    if not path.exists():
        return {}
    out: dict[str, list[str]] = {}
    for r in pq.read_table(path, columns=["document_sha256", "text_path"]).to_pylist():
        out.setdefault(r["document_sha256"], []).append(r["text_path"])
    return out


def _document_contexts(data_dir: Path) -> dict[str, PageContext]:
    """document sha256 -> the document's facts as the judge sees them ({} without the table)."""
    from evalset_pipeline.core.metadata.facts_record import DocumentFacts
    from evalset_pipeline.core.tables import read_rows

    path = Path(data_dir) / "artifacts" / "tables" / "document_facts.parquet"
    if not path.exists():
        return {}
    facts = [DocumentFacts.from_row(r) for r in read_rows(path, producer="page_metadata")]
    return {f.document_sha256: f.page_context() for f in facts}


def _page_facts(data_dir: Path) -> dict[str, tuple[str, str]]:
    """unit id -> (basis, outline section) of the pages that have one ({} without the table)."""
    import pyarrow.parquet as pq

    path = Path(data_dir) / "artifacts" / "tables" / "page_profiles.parquet"
    if not path.exists():
        return {}
    rows = pq.read_table(path).to_pylist()
    return {
        r["unit_id"]: (r.get("basis") or "", r.get("section") or "")
        for r in rows
        if r.get("basis") or r.get("section")
    }


def audit(data_dir: Path) -> dict[str, Any]:
    """Automatic checks of the kept main items of the latest golden set in `data_dir`.

    answer_on_page  the answer's figure is printed on the gold page in the row and column the question
                    names (table questions: read back with the table reader, entity aside), or anywhere
                    on the page (other questions)
    leak            distractors that print the same figure for the same row and period
    figure_printed_on_distractor
                    distractors that print the answer's figure anywhere (no reader: an upper bound on
                    leaks, which also counts the figure in another row, column or sentence)
    units           answers whose unit agrees with the gold table's stated unit (scale and currency)
    """

    from dataclasses import replace

    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.pagetext.layer import read_text_layer
    from evalset_pipeline.core.reader.table_questions import (
        judge_table_question,
        parse_table_question,
        read_table_page,
    )

    gs = load_golden_set("latest", data_dir)
    units = {u["unit_id"]: u for u in gs.units.to_pylist()}
    contexts = _document_contexts(data_dir)

    page_facts = _page_facts(data_dir)

    def context(unit_id: str) -> PageContext | None:
        # the judge knows the filing a page is from, as the pipeline's judge does ("당기말" of
        # it), and what the page adds: its basis and its section in the PDF's outline
        found = contexts.get(units[unit_id]["document_sha256"])
        basis, section = page_facts.get(unit_id, ("", ""))
        if found is None or not (basis or section):
            return found
        return replace(found, basis=basis or found.basis, section=section or found.section)

    items = [i for i in gs.items.to_pylist() if i["slice"] == "main"]
    judged = gs.judgments.to_pylist()
    root = Path(data_dir)

    def layer(unit_id: str) -> dict:
        return read_text_layer(root / units[unit_id]["text_path"])

    def tables(unit_id: str):
        return read_table_page(layer(unit_id))

    renders = _page_texts(data_dir)
    stated: dict[str, set[str]] = {}

    def document_units(sha: str) -> set[str]:
        # the money every unit line of the document names, read from its pages' text layers
        if sha not in stated:
            stated[sha] = _money_stated(
                [str(read_text_layer(root / p).get("text") or "") for p in renders.get(sha, [])]
            )
        return stated[sha]

    on_page = unit_ok = unit_checked = leaks = distractors = printed = 0
    failures: list[dict] = []
    for item in items:
        gold = layer(item["gold_unit_id"])
        q = parse_table_question(item["question"])
        number = _number(item["answer"])
        if q is not None:
            unqualified = replace(
                q, entity="", revision=""
            )  # the cell itself; the entity is the context's
            j = judge_table_question(
                unqualified, read_table_page(gold), context(item["gold_unit_id"])
            )
            ok = j.answers and _number(j.answer or "") == number
            unit_checked, unit_ok = _check_unit(
                item["answer"],
                str(gold.get("text") or ""),
                unit_checked,
                unit_ok,
                gold.get("words"),
                document_units(units[item["gold_unit_id"]]["document_sha256"]),
            )
        else:
            unqualified = None
            ok = bool(number) and number.strip("()%") in str(gold.get("text") or "")
        on_page += ok
        if not ok:
            failures.append({"question": item["question"], "answer": item["answer"]})
        for d in (
            j for j in judged if j["item_id"] == item["item_id"] and j["role"] == "distractor"
        ):
            distractors += 1
            if unqualified is not None:
                dj = judge_table_question(unqualified, tables(d["unit_id"]), context(d["unit_id"]))
                leaks += bool(dj.answers and _number(dj.answer or "") == number)
            # Reader-free upper bound: the distractor prints the figure anywhere, in any row or column.
            printed += bool(number) and _prints(str(layer(d["unit_id"]).get("text") or ""), number)
    n = len(items)
    return {
        "kept_main": n,
        "answer_on_page": round(on_page / n, 4) if n else None,
        "leak": round(leaks / distractors, 4) if distractors else 0.0,
        "distractors": distractors,
        "figure_printed_on_distractor": round(printed / distractors, 4) if distractors else 0.0,
        "units": round(unit_ok / unit_checked, 4) if unit_checked else None,
        "units_checked": unit_checked,
        "answer_not_on_page_examples": failures[:5],
    }


def completeness_and_pooling(data_dir: Path) -> dict[str, Any]:
    """`report completeness` of the latest version, and what its pools held and found."""
    from collections import Counter

    import pyarrow.parquet as pq

    from evalset_pipeline.core.evidence.completeness import completeness, item_refs
    from evalset_pipeline.core.evidence.index import EvidenceIndex
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.paths import DataPaths

    gs = load_golden_set("latest", data_dir)
    tables = Path(data_dir) / "artifacts" / "tables"
    index = EvidenceIndex.read(DataPaths.at(data_dir))
    judged = gs.judgments.to_pylist()
    items = item_refs(gs.items.to_pylist(), judged)
    report = completeness(items, {(j["item_id"], j["unit_id"]) for j in judged}, index)
    main = {i["item_id"] for i in gs.items.to_pylist() if i["slice"] == "main"}
    sufficient = Counter(j["item_id"] for j in judged if j["label"] == "sufficient")
    pools = pq.read_table(tables / "item_pools.parquet").to_pylist()
    sizes = Counter(r["item_id"] for r in pools)
    found = Counter(s for r in pools for s in r["sources"])
    return {
        "completeness": {
            **{k: v for k, v in report.to_dict().items() if k != "unjudged"},
            "unjudged_examples": [u.__dict__ for u in report.unjudged[:5]],
        },
        "pooling": {
            "pool_pages": len(pools),
            "median_pool": sorted(sizes.values())[len(sizes) // 2] if sizes else 0,
            "members_by_source": dict(sorted(found.items())),
            "main_items_with_2plus_sufficient": sum(1 for i in main if sufficient[i] >= 2),
            "main_items": len(main),
            "judgments": len(judged),
        },
    }


def _funnel(data_dir: Path) -> dict[str, Any]:
    import pyarrow.parquet as pq

    from evalset_pipeline.core.golden.reader import load_golden_set

    funnel = load_golden_set("latest", data_dir).info.get("funnel") or {}
    rows = pq.read_table(Path(data_dir) / "artifacts" / "tables" / "funnel.parquet").to_pylist()
    skipped = Counter(
        r["reason"] for r in rows if r["stage"] == "write" and r["decision"] == "skipped"
    )
    return {"funnel": funnel, "write_skip_reasons": dict(skipped.most_common(5))}


def _lookalikes(data_dir: Path) -> dict[str, Any]:
    """Main items with a distractor one axis away, per axis (core/negatives/lookalikes.py)."""
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.negatives.lookalikes import golden_lookalikes

    golden = load_golden_set("latest", data_dir=data_dir)
    return golden_lookalikes(golden.items, golden.judgments)


def run(
    corpus: str | None = None, data_dir: str | None = None, sample_size: str | int = 300
) -> dict[str, Any]:
    import dagster as dg

    from evalset_pipeline.definitions import all_assets
    from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource

    pdfs, truth = _folders(corpus)
    scratch = None
    if data_dir is None:
        scratch = Path(tempfile.mkdtemp(prefix="evalset-realdocs-"))
        data_dir = str(scratch)
    resources = {
        "settings": PipelineSettings(
            data_dir=data_dir, corpus_dir=str(pdfs), sample_size=int(sample_size)
        ),
        "vlm": VLMResource(backend="textlayer"),
        "embedder": EmbedderResource(model="appearance"),
    }
    selection = dg.AssetSelection.all() - dg.AssetSelection.groups("scores")
    t0 = time.perf_counter()
    try:
        dg.materialize(
            all_assets,
            resources=resources,
            selection=selection,
            instance=dg.DagsterInstance.ephemeral(),
            raise_on_error=True,
        )
        seconds = time.perf_counter() - t0
        figures = measure(Path(data_dir), truth)
        figures["questions"] = {
            **_funnel(Path(data_dir)),
            **audit(Path(data_dir)),
            **completeness_and_pooling(Path(data_dir)),
            "lookalikes": _lookalikes(Path(data_dir)),
            "sample_size": int(sample_size),
        }
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    pages = figures["judged_pages"]
    return {
        "name": "realdocs",
        "corpus": str(pdfs),
        "pages": pages,
        "seconds": round(seconds, 1),
        "pages_per_s": round(pages / seconds, 2) if seconds else None,
        **figures,
        "ratio": figures["period_accuracy"],
    }
