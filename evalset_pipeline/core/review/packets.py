"""Review packets: a seeded, stratified sample of golden items as offline HTML + a sheet per annotator.

    DIR/index.html          what is in the packet, one link per annotator slot
    DIR/packet_<slot>.html  the items of that slot: question, answer, the gold page and its
                            distractors side by side, the model's label and rationale for each,
                            and radio buttons; "Download sheet" saves the filled sheet as CSV
    DIR/sheet_<slot>.csv    the same rows as a spreadsheet to fill in (`human_label`, `note`)
    DIR/images/             each page render once (`--embed` inlines them instead)
    DIR/manifest.json       version, seed, sample, slots, which items are double-annotated

Sampling: items are stratified by (slice, gold page template, qualified axes) with the same
proportional, seeded allocation the gold sample uses, so a rare template or the regression
slice is never left out. A share `overlap` of the sampled items goes to *every* slot (double
annotation; inter-annotator agreement and adjudication are measured on these); the rest is dealt
round-robin across slots. Items already carrying a human label for their current question are
skipped unless asked for.

Everything a page or a model wrote (questions, answers, rationales, page text, paths) is
HTML-escaped; the sheet rows embedded for the download button are JSON with `<`, `>` and `&`
escaped, so no text can close the script element.
"""

from __future__ import annotations

import base64
import html
import json
import shutil
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.hashing import fingerprint
from evalset_pipeline.core.pagetext.layer import page_text_or_empty
from evalset_pipeline.core.questions.sampling import stratified_sample
from evalset_pipeline.core.review.sheets import SHEET_COLUMNS, spreadsheet_safe, write_csv
from evalset_pipeline.core.review.store import question_sha

ROLE_ORDER = {"gold": 0, "distractor": 1, "pooled": 2}
LABEL_HELP = {
    "sufficient": "a competent reader could derive the answer from this page alone",
    "supporting": "relevant, on the subject, but not enough on its own to answer",
    "irrelevant": "neither: another subject, or nothing that helps answer",
}


class PacketError(ValueError):
    pass


@dataclass(frozen=True)
class Selection:
    slots: dict[str, list[str]]  # slot -> item ids, in packet order
    overlap: list[str]  # items in every slot
    strata: dict[str, int]  # stratum -> items sampled


def stratum_of(item: dict[str, Any], template: str) -> str:
    return f"{item['slice']}|{template or '-'}|{item.get('qualified_axes') or '-'}"


def select_items(
    items: Sequence[dict[str, Any]],
    templates: dict[str, str],  # unit id -> template id
    sample: int,
    seed: int,
    overlap: float,
    slots: Sequence[str],
) -> Selection:
    if sample < 1:
        raise PacketError("--sample must be at least 1")
    if not 0.0 <= overlap <= 1.0:
        raise PacketError("--overlap is a share between 0 and 1")
    if not slots or len(set(slots)) != len(slots):
        raise PacketError("slots must be distinct names, e.g. A,B")
    ids = [i["item_id"] for i in items]
    strata = [stratum_of(i, templates.get(i["gold_unit_id"], "")) for i in items]
    chosen = stratified_sample(ids, strata, sample, seed)
    by_id = dict(zip(ids, strata, strict=False))
    rng = np.random.default_rng(seed)
    order = [
        chosen[i] for i in rng.permutation(len(chosen))
    ]  # seeded packet order, not grouped by document
    n_overlap = int(round(overlap * len(order))) if len(slots) > 1 else 0
    shared, rest = order[:n_overlap], order[n_overlap:]
    out: dict[str, list[str]] = {s: [] for s in slots}
    position = {item: k for k, item in enumerate(order)}
    for k, item in enumerate(rest):
        out[slots[k % len(slots)]].append(item)
    for s in slots:
        out[s] = sorted(out[s] + shared, key=position.__getitem__)
    return Selection(
        out,
        sorted(shared, key=position.__getitem__),
        dict(sorted(Counter(by_id[i] for i in chosen).items())),
    )


def _title(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:160]
    return ""


def export_packets(
    golden: GoldenSet,
    out_dir: str | Path,
    *,
    sample: int = 20,
    overlap: float = 0.2,
    slots: Sequence[str] = ("A", "B"),
    seed: int = 13,
    blind: bool = False,
    embed: bool = False,
    slices: Sequence[str] | None = None,
    skip_items: Iterable[str] = (),
    overwrite: bool = False,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Write the packet; returns a summary (also written as manifest.json)."""
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise PacketError(f"{out} is not empty; choose another directory or pass --overwrite")
    out.mkdir(parents=True, exist_ok=True)
    data_dir = golden.snapshot_dir.parents[2]  # <data>/golden/versions/<id>
    units = {u["unit_id"]: u for u in golden.units.to_pylist()}
    skip = set(skip_items)
    items = [
        i
        for i in golden.items.to_pylist()
        if (not slices or i["slice"] in slices) and i["item_id"] not in skip
    ]
    if not items:
        raise PacketError("no items left to review (all reviewed, or no item in the chosen slices)")
    judgments: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for j in golden.judgments.to_pylist():
        judgments[j["item_id"]].append(j)
    templates = {u: r.get("template_id") or "" for u, r in units.items()}
    selection = select_items(items, templates, sample, seed, overlap, list(slots))
    by_id = {i["item_id"]: i for i in items}
    prov = golden.info.get("provenance") or {}
    judge = {
        "backend": prov.get("backend"),
        "model": prov.get("model"),
        "label_prompt": (prov.get("prompts") or {}).get("label"),
    }
    packet_id = "pk-" + fingerprint(
        {"version": golden.version_id, "slots": selection.slots, "blind": blind, "seed": seed}, 12
    )
    created = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")

    # Images: copied once each, named by content hash (or inlined with --embed).
    needed = {
        j["unit_id"]
        for item in selection.overlap + [i for s in selection.slots.values() for i in s]
        for j in judgments[item]
    }
    image_src: dict[str, str] = {}  # unit -> file under DIR, or "" when embedded (see `embedded`)
    embedded: dict[
        str, str
    ] = {}  # unit -> data URI, each image once per page, set by the packet's script
    texts: dict[str, str] = {}
    missing = []
    for unit_id in sorted(needed):
        row = units.get(unit_id)
        src = data_dir / row["render_path"] if row else None
        if row is None or src is None or not src.is_file():
            missing.append(unit_id)
            continue
        texts[unit_id] = page_text_or_empty(data_dir / row["text_path"])
        suffix = src.suffix or ".png"
        if embed:
            embedded[unit_id] = "data:image/png;base64," + base64.b64encode(
                src.read_bytes()
            ).decode("ascii")
            image_src[unit_id] = ""
        else:
            name = f"images/{row['render_hash'][:24]}{suffix}"
            target = out / name
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, target)
            image_src[unit_id] = name
    if missing:
        raise PacketError(
            f"{len(missing)} page render(s) missing under {data_dir}: {', '.join(missing[:5])}"
        )

    files: dict[str, dict[str, Any]] = {}
    for slot, item_ids in selection.slots.items():
        rows: list[dict[str, Any]] = []
        cards = []
        for pos, item_id in enumerate(item_ids, 1):
            item = by_id[item_id]
            qsha = question_sha(item["question"])
            cands = sorted(
                judgments[item_id],
                key=lambda j: (ROLE_ORDER.get(j["role"], 9), j["axis"], j["unit_id"]),
            )
            item_rows = []
            for j in cands:
                u = units[j["unit_id"]]
                item_rows.append(
                    {
                        "packet_id": packet_id,
                        "version_id": golden.version_id,
                        "slot": slot,
                        "item_id": item_id,
                        "unit_id": j["unit_id"],
                        "question_sha": qsha,
                        "role": j["role"],
                        "axis": j["axis"],
                        "page": f"{u['document_path']} p.{u['page_number']}",
                        "question": item["question"],
                        "answer": item["answer"],
                        "model_label": "" if blind else j["label"],
                        "model_rationale": "" if blind else j["rationale"],
                        "human_label": "",
                        "note": "",
                        "_source": j.get("label_source") or "model",
                    }
                )
            rows += item_rows
            cards.append(
                _card(
                    pos,
                    item,
                    item_rows,
                    units,
                    image_src,
                    texts,
                    item_id in selection.overlap,
                    blind,
                )
            )
        sheet = out / f"sheet_{slot}.csv"
        write_csv(sheet, SHEET_COLUMNS, rows)
        page = out / f"packet_{slot}.html"
        images = {r["unit_id"]: embedded[r["unit_id"]] for r in rows if r["unit_id"] in embedded}
        page.write_text(
            _page(golden, packet_id, slot, cards, rows, judge, created, blind, images),
            encoding="utf-8",
        )
        files[slot] = {
            "packet": page.name,
            "sheet": sheet.name,
            "items": len(item_ids),
            "labels": len(rows),
        }

    manifest = {
        "packet_id": packet_id,
        "version_id": golden.version_id,
        "created": created,
        "seed": seed,
        "sample": sample,
        "overlap": overlap,
        "blind": blind,
        "embedded_images": embed,
        "slices": list(slices or []),
        "judge": judge,
        "slots": selection.slots,
        "double_annotated": selection.overlap,
        "strata": selection.strata,
        "files": files,
        "skipped_reviewed_items": len(skip & {i["item_id"] for i in golden.items.to_pylist()}),
    }
    (out / "manifest.json").write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    (out / "index.html").write_text(_index(manifest), encoding="utf-8")
    return manifest


# --- HTML -------------------------------------------------------------------------------------------

e = html.escape

CSS = """
:root{--ink:#1f2328;--mute:#59636e;--line:#d1d9e0;--bg:#f6f8fa;--card:#fff;--suf:#1a7f37;--sup:#9a6700;--irr:#6e7781;
--suf-bg:#dafbe1;--sup-bg:#fff8c5;--irr-bg:#eaeef2}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK KR",sans-serif;color:var(--ink);background:var(--bg)}
header.top{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid var(--line);padding:10px 24px;display:flex;gap:16px;align-items:center;flex-wrap:wrap}
header.top h1{font-size:17px;margin:0;white-space:nowrap}header.top .meta{color:var(--mute);font-size:12.5px;flex:1 1 200px;min-width:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.spacer{flex:1}.progress{font-variant-numeric:tabular-nums;color:var(--mute)}
.progress b{color:var(--ink)}.bar{width:160px;height:6px;background:var(--irr-bg);border-radius:3px;overflow:hidden}
.bar i{display:block;height:100%;background:var(--suf);width:0}
button{font:inherit;border:1px solid var(--line);background:#fff;border-radius:6px;padding:6px 12px;cursor:pointer}
button.primary{background:#1f883d;border-color:#1a7f37;color:#fff;font-weight:600}
main{max-width:1800px;margin:0 auto;padding:16px 24px 80px}
.help{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin-bottom:16px;display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:8px 24px}
.help p{margin:4px 0;color:var(--mute)}.help .howto{grid-column:1/-1;border-top:1px solid var(--line);padding-top:8px}
article{background:var(--card);border:1px solid var(--line);border-radius:10px;margin:0 0 18px;padding:14px 16px 16px}
article.done{border-color:#8dd39e}
.qhead{display:flex;gap:8px;align-items:center;flex-wrap:wrap;color:var(--mute);font-size:12.5px}
.qhead .n{font-weight:700;color:var(--ink);font-size:13px}
.tag{display:inline-block;border-radius:999px;padding:1px 8px;font-size:11.5px;font-weight:600;background:var(--irr-bg);color:var(--ink)}
.tag.double{background:#ddf4ff;color:#0550ae}.tag.regression{background:#ffebe9;color:#a40e26}.tag.underspecified{background:#fbefff;color:#6639ba}
.question{font-size:18px;font-weight:600;margin:8px 0 2px}.answer{color:var(--mute);margin:0 0 12px}
.answer b{color:var(--ink)}
.cands{display:grid;grid-auto-flow:column;grid-auto-columns:minmax(320px,400px);gap:12px;overflow-x:auto;padding-bottom:6px}
.cand{border:1px solid var(--line);border-radius:8px;background:#fff;display:flex;flex-direction:column;overflow:hidden}
.cand.gold{border-color:#d4a72c;box-shadow:0 0 0 1px #d4a72c inset}
.cand .img{background:#f0f2f4;display:block;cursor:zoom-in;border-bottom:1px solid var(--line)}
.cand img{display:block;width:100%;height:auto}
.cand .body{padding:8px 10px;display:flex;flex-direction:column;gap:6px;flex:1}
.role{font-size:11.5px;font-weight:700;letter-spacing:.02em;text-transform:uppercase}
.role.gold{color:#9a6700}.role.distractor{color:#cf222e}.role.pooled{color:#0969da}
.where{font-size:12px;color:var(--mute);word-break:break-all}.facts{font-size:12.5px}
.model{font-size:12.5px;background:var(--bg);border-radius:6px;padding:6px 8px}
.model .why{color:var(--mute);display:block;margin-top:2px}
.chip{display:inline-block;border-radius:4px;padding:0 6px;font-weight:700;font-size:12px}
.chip.sufficient{background:var(--suf-bg);color:var(--suf)}.chip.supporting{background:var(--sup-bg);color:var(--sup)}.chip.irrelevant{background:var(--irr-bg);color:var(--irr)}
fieldset{border:0;margin:0;padding:0;display:flex;gap:4px}
fieldset label{flex:1;text-align:center;border:1px solid var(--line);border-radius:6px;padding:5px 0;cursor:pointer;font-size:12.5px;font-weight:600;user-select:none}
fieldset input{position:absolute;opacity:0;pointer-events:none}
fieldset input:focus-visible+span{outline:2px solid #0969da;outline-offset:2px}
fieldset label.sufficient:has(input:checked){background:var(--suf);border-color:var(--suf);color:#fff}
fieldset label.supporting:has(input:checked){background:#bf8700;border-color:#bf8700;color:#fff}
fieldset label.irrelevant:has(input:checked){background:var(--irr);border-color:var(--irr);color:#fff}
input.note{width:100%;font:inherit;font-size:12.5px;border:1px solid var(--line);border-radius:6px;padding:4px 6px}
details{font-size:12px}details pre{white-space:pre-wrap;max-height:200px;overflow:auto;background:var(--bg);padding:6px;border-radius:6px;margin:4px 0 0}
#zoom{position:fixed;inset:0;background:rgba(15,20,25,.86);display:none;align-items:center;justify-content:center;z-index:10;cursor:zoom-out}
#zoom.on{display:flex}#zoom img{max-width:96vw;max-height:94vh;background:#fff;box-shadow:0 8px 40px rgba(0,0,0,.5)}
nav.toc{font-size:12.5px;color:var(--mute);margin:0 0 12px}nav.toc a{color:#0969da;text-decoration:none;margin-right:8px}
nav.toc a.done{color:var(--suf)}
"""

JS = """
(function(){
const imgs=document.getElementById('images');
if(imgs){const M=JSON.parse(imgs.textContent);document.querySelectorAll('[data-img]').forEach(function(el){
  const u=M[el.dataset.img];if(el.tagName==='IMG')el.src=u;else el.href=u;})}
const rows=JSON.parse(document.getElementById('sheet-rows').textContent);
const cols=JSON.parse(document.getElementById('sheet-cols').textContent);
const meta=document.body.dataset;const KEY='evalset-review:'+meta.packet+':'+meta.slot;
let state={};try{state=JSON.parse(localStorage.getItem(KEY)||'{}')}catch(e){}
function save(){try{localStorage.setItem(KEY,JSON.stringify(state))}catch(e){}}
function k(i,u){return i+'\\u0000'+u}
document.querySelectorAll('.cand').forEach(function(c){
  const key=k(c.dataset.item,c.dataset.unit);const s=state[key]||{};
  c.querySelectorAll('input[type=radio]').forEach(function(r){if(r.value===s.label)r.checked=true;
    r.addEventListener('change',function(){state[key]=Object.assign(state[key]||{}, {label:r.value});save();refresh()})});
  const n=c.querySelector('input.note');if(n){n.value=s.note||'';n.addEventListener('input',function(){state[key]=Object.assign(state[key]||{}, {note:n.value});save()})}
});
function refresh(){let done=0;rows.forEach(function(r){if((state[k(r.item_id,r.unit_id)]||{}).label)done++});
  document.getElementById('done').textContent=done;document.getElementById('bar').style.width=(rows.length?100*done/rows.length:0)+'%';
  document.querySelectorAll('article').forEach(function(a){const cs=a.querySelectorAll('.cand');let d=0;
    cs.forEach(function(c){if((state[k(c.dataset.item,c.dataset.unit)]||{}).label)d++});
    const all=d===cs.length;a.classList.toggle('done',all);const t=document.querySelector('nav.toc a[href="#'+a.id+'"]');if(t)t.classList.toggle('done',all)})}
function cell(v){v=v==null?'':String(v);return /[",\\r\\n]/.test(v)?'"'+v.replace(/"/g,'""')+'"':v}
document.getElementById('download').addEventListener('click',function(){
  const lines=[cols.join(',')];rows.forEach(function(r){const s=state[k(r.item_id,r.unit_id)]||{};
    const out=Object.assign({},r,{human_label:s.label||'',note:s.note||''});lines.push(cols.map(function(c){return cell(out[c])}).join(','))});
  const blob=new Blob(['\\ufeff'+lines.join('\\r\\n')+'\\r\\n'],{type:'text/csv;charset=utf-8'});
  const a=document.createElement('a');a.href=URL.createObjectURL(blob);a.download='sheet_'+meta.slot+'_filled.csv';
  document.body.appendChild(a);a.click();setTimeout(function(){URL.revokeObjectURL(a.href);a.remove()},0)});
const zoom=document.getElementById('zoom');const zimg=zoom.querySelector('img');
document.querySelectorAll('a.img').forEach(function(a){a.addEventListener('click',function(ev){ev.preventDefault();
  zimg.src=a.querySelector('img').src;zimg.alt=a.querySelector('img').alt;zoom.classList.add('on')})});
zoom.addEventListener('click',function(){zoom.classList.remove('on');zimg.removeAttribute('src')});
document.addEventListener('keydown',function(ev){if(ev.key==='Escape')zoom.classList.remove('on')});
refresh();
})();
"""


def _script_json(value: Any) -> str:
    """JSON safe inside <script>: no '<', '>' or '&' survive, so nothing can end the element."""
    return (
        json.dumps(value, ensure_ascii=False)
        .replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _card(
    pos: int,
    item: dict[str, Any],
    rows: list[dict[str, Any]],
    units: dict[str, dict[str, Any]],
    image_src: dict[str, str],
    texts: dict[str, str],
    double: bool,
    blind: bool,
) -> str:
    item_id = item["item_id"]
    gold = units.get(item["gold_unit_id"], {})
    tags = [f'<span class="tag {e(item["slice"])}">{e(item["slice"])}</span>']
    if gold.get("template_id"):
        tags.append(f'<span class="tag">template {e(gold["template_id"])}</span>')
    if item.get("qualified_axes"):
        tags.append(
            f'<span class="tag">qualified: {e(item["qualified_axes"].replace(",", ", "))}</span>'
        )
    if double:
        tags.append('<span class="tag double">double-annotated</span>')
    cands = []
    for r in rows:
        u = units[r["unit_id"]]
        name = f"{item_id}|{r['unit_id']}"
        role = r["role"] + (f" · {r['axis']}" if r["axis"] else "")
        facts = " · ".join(
            e(str(u.get(f))) for f in ("entity", "period", "metric", "revision") if u.get(f)
        )
        text = texts.get(r["unit_id"], "")
        if blind:
            model = ""
        else:
            src = "model" if r["_source"] == "model" else r["_source"]
            model = (
                f'<div class="model">{e(src)}: <span class="chip {e(r["model_label"])}">{e(r["model_label"])}</span>'
                f'<span class="why">{e(r["model_rationale"] or "")}</span></div>'
            )
        radios = "".join(
            f'<label class="{lab}" title="{e(LABEL_HELP[lab])}"><input type="radio" name="{e(name)}" value="{lab}">'
            f"<span>{lab}</span></label>"
            for lab in LABEL_HELP
        )
        cands.append(
            f'<div class="cand {e(r["role"])}" data-item="{e(item_id)}" data-unit="{e(r["unit_id"])}">'
            + _image(r["unit_id"], image_src[r["unit_id"]], f"{r['role']} page {r['page']}")
            + f'<div class="body"><div class="role {e(r["role"])}">{e(role)}</div>'
            f'<div class="where">{e(r["page"])}</div>'
            + (f'<div class="facts">{facts}</div>' if facts else "")
            + model
            + f'<fieldset aria-label="label for {e(r["unit_id"])}">{radios}</fieldset>'
            f'<input class="note" placeholder="note (optional)" aria-label="note">'
            + (
                f"<details><summary>{e(_title(text)) or 'page text'}</summary><pre>{e(text)}</pre></details>"
                if text
                else ""
            )
            + "</div></div>"
        )
    answer = item.get("answer") or ""
    return (
        f'<article id="i{pos}"><div class="qhead"><span class="n">#{pos}</span><span>{e(item_id)}</span>{"".join(tags)}</div>'
        f'<p class="question" lang="{e(item.get("language") or "")}">{e(item["question"])}</p>'
        f'<p class="answer">expected answer: <b>{e(answer) if answer else "—"}</b>'
        + (
            f" · as first written: {e(item['original_question'])}"
            if item.get("original_question") and item["original_question"] != item["question"]
            else ""
        )
        + f'</p><div class="cands">{"".join(cands)}</div></article>'
    )


def _image(unit_id: str, src: str, alt: str) -> str:
    if src:  # a file beside the packet: works without scripts too
        return (
            f'<a class="img" href="{e(src)}" target="_blank" rel="noopener">'
            f'<img loading="lazy" src="{e(src)}" alt="{e(alt)}"></a>'
        )
    # Embedded: the data URI lives once in the page's image map; the packet's script sets it.
    return f'<a class="img" href="#" data-img="{e(unit_id)}"><img data-img="{e(unit_id)}" alt="{e(alt)}"></a>'


def _page(
    golden: GoldenSet,
    packet_id: str,
    slot: str,
    cards: list[str],
    rows: list[dict[str, Any]],
    judge: dict[str, Any],
    created: str,
    blind: bool,
    images: dict[str, str] | None = None,
) -> str:
    sheet_rows = [
        {
            c: (
                spreadsheet_safe(r.get(c))
                if c in ("page", "question", "answer", "model_rationale")
                else r.get(c, "")
            )
            for c in SHEET_COLUMNS
        }
        for r in rows
    ]
    who = f"{judge.get('backend') or '?'}/{judge.get('model') or '?'} (label prompt {judge.get('label_prompt') or '?'})"
    help_html = "".join(
        f'<div><span class="chip {k}">{k}</span><p>{e(v)}</p></div>' for k, v in LABEL_HELP.items()
    )
    pre = (
        "Model labels are hidden in this packet (blind review): label each page on its own merits."
        if blind
        else f"Each page shows the label the model {e(who)} gave it; check it, do not copy it."
    )
    toc = " ".join(f'<a href="#i{k}">#{k}</a>' for k in range(1, len(cards) + 1))
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>Review packet {e(packet_id)} · slot {e(slot)}</title><style>{CSS}</style></head>"
        f'<body data-packet="{e(packet_id)}" data-slot="{e(slot)}">'
        f'<header class="top"><h1>Review packet · annotator slot {e(slot)}</h1>'
        f'<span class="meta">golden set {e(golden.version_id)} · {len(cards)} questions · {len(rows)} pages to label · '
        f"{e(packet_id)} · {e(created)}</span>"
        f'<span class="progress"><b id="done">0</b> / {len(rows)} labelled</span><span class="bar"><i id="bar"></i></span>'
        f'<button class="primary" id="download" title="save your labels as a CSV sheet to import">Download sheet</button></header>'
        f'<main><section class="help">{help_html}<div class="howto"><b>How to return it.</b> <span>{pre} Pick a label for every page '
        f"(your choices are kept in this browser), then <b>Download sheet</b> and send the CSV, or fill "
        f"<code>sheet_{e(slot)}.csv</code> in a spreadsheet. Import: <code>evalset review import SHEET --annotator NAME</code>."
        f'</span></div></section><nav class="toc">{toc}</nav>{"".join(cards)}</main>'
        '<div id="zoom" role="dialog" aria-label="page image"><img alt=""></div>'
        f'<script type="application/json" id="sheet-rows">{_script_json(sheet_rows)}</script>'
        f'<script type="application/json" id="sheet-cols">{_script_json(list(SHEET_COLUMNS))}</script>'
        + (
            f'<script type="application/json" id="images">{_script_json(images)}</script>'
            if images
            else ""
        )
        + f"<script>{JS}</script></body></html>"
    )


def _index(m: dict[str, Any]) -> str:
    rows = "".join(
        f'<tr><td><b>{e(slot)}</b></td><td><a href="{e(f["packet"])}">{e(f["packet"])}</a></td>'
        f'<td><a href="{e(f["sheet"])}">{e(f["sheet"])}</a></td><td>{f["items"]}</td><td>{f["labels"]}</td></tr>'
        for slot, f in m["files"].items()
    )
    strata = "".join(f"<tr><td>{e(k)}</td><td>{v}</td></tr>" for k, v in m["strata"].items())
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>Review packet {e(m['packet_id'])}</title><style>{CSS} table{{border-collapse:collapse;background:#fff}}"
        "td,th{border:1px solid var(--line);padding:4px 10px;text-align:left}</style></head><body><main>"
        f"<h1>Review packet {e(m['packet_id'])}</h1><p>golden set <b>{e(m['version_id'])}</b> · created {e(m['created'])} · "
        f"seed {m['seed']} · {len(m['double_annotated'])} double-annotated question(s) in every slot"
        f"{' · blind (model labels hidden)' if m['blind'] else ''}</p>"
        f"<table><tr><th>slot</th><th>packet</th><th>sheet</th><th>questions</th><th>labels</th></tr>{rows}</table>"
        f"<h2>Sample by stratum (slice | template | qualified axes)</h2><table>{strata}</table></main></body></html>"
    )
