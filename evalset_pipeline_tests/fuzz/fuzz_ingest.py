"""Fuzz PDF ingest and render: mutated PDFs through `scan_corpus` + `render_corpus`.

The property: no exception escapes ingest. Every file ends up a document or a rejected
document, and every page of a document is rendered or a rejected page; nothing else.

    python -m evalset_pipeline_tests.fuzz.fuzz_ingest --seconds 300 [--seed N] [--atheris]

Without --atheris it runs a seeded, structure-aware mutation loop (byte flips, cuts, splices,
PDF-token edits: /Count, /Length, xref offsets, `endobj`, filters, deep nesting) over seed PDFs
(sample-corpus documents and the bad-input builders). With --atheris (pip install atheris) the
same check is driven by libFuzzer's data. A failing input is written to --crash-dir (default
data/artifacts/fuzz-crashes, git-ignored) and the run exits 1. The smoke test in test_fuzz_smoke.py runs this briefly.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

from evalset_pipeline.core.corpus.documents import scan_corpus
from evalset_pipeline.core.render.pages import RenderSettings, render_corpus

SETTINGS = RenderSettings(dpi=24, max_pixels=250_000)  # small: the renderer's logic, not its pixels
MAX_INPUT = 256 * 1024


def seed_pdfs() -> list[bytes]:
    """Small but varied starting points: text, images, forms, fonts, encryption, object streams."""
    import pymupdf

    from evalset_pipeline.samplekit.sample_corpus import plan_sample_corpus, render_document
    from evalset_pipeline_tests.support import bad_corpus as bc

    seeds: list[bytes] = []
    plan = plan_sample_corpus(entities=2, periods=1)
    for doc in plan.documents[:2]:
        seeds.append(render_document(doc))
    seeds.append(bc.simple_pdf(None, 3, label="seed"))
    seeds.append(bc.simple_pdf(None, 2, label="objstm", use_objstms=1, garbage=3, deflate=True))
    seeds.append(bc.zero_page_pdf())
    with tempfile.TemporaryDirectory() as tmp:
        for build in (bc.deep_forms_page_pdf, bc.not_a_stream_page_pdf, bc.encrypted_pdf):
            path = Path(tmp) / f"{build.__name__}.pdf"
            build(path) if build is bc.encrypted_pdf else build(
                path, depth=40
            ) if build is bc.deep_forms_page_pdf else build(path)
            seeds.append(path.read_bytes())
    doc = pymupdf.open()
    page = doc.new_page(width=200, height=200)
    pix = pymupdf.Pixmap(pymupdf.csRGB, 16, 16, bytes(random.Random(0).randbytes(16 * 16 * 3)), 0)
    page.insert_image(page.rect, pixmap=pix)
    page.insert_text((10, 20), "image page")
    seeds.append(doc.tobytes(deflate=False))
    return seeds


_TOKENS = [
    b"obj",
    b"endobj",
    b"stream",
    b"endstream",
    b"xref",
    b"trailer",
    b"startxref",
    b"/Count",
    b"/Kids",
    b"/Length",
    b"/Filter",
    b"/FlateDecode",
    b"/DCTDecode",
    b"/Type",
    b"/Page",
    b"/Pages",
    b"/Contents",
    b"/Resources",
    b"/XObject",
    b"/Font",
    b"/MediaBox",
    b"R",
    b"<<",
    b">>",
    b"[",
    b"]",
    b"%%EOF",
    b"null",
]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four mutations, each chosen to stress a different part of a PDF reader."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not buf:
            buf += rng.randbytes(rng.randint(1, 64))
            continue
        op = rng.randrange(10)
        i = rng.randrange(len(buf))
        if op == 0:  # flip bytes
            for _ in range(rng.randint(1, 16)):
                buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
        elif op == 1:  # cut the file
            del buf[rng.randint(0, len(buf)) :]
        elif op == 2:  # delete a chunk
            del buf[i : i + rng.randint(1, 512)]
        elif op == 3:  # duplicate a chunk somewhere else
            chunk = bytes(buf[i : i + rng.randint(1, 1024)])
            j = rng.randrange(len(buf) + 1)
            buf[j:j] = chunk
        elif op == 4:  # replace a number (offsets, lengths, counts, object numbers)
            nums = list(re.finditer(rb"\d+", buf))
            if nums:
                m = rng.choice(nums)
                new = rng.choice(
                    [
                        b"0",
                        b"-1",
                        b"1",
                        b"99999999999",
                        b"2147483648",
                        str(rng.randrange(10**6)).encode(),
                    ]
                )
                buf[m.start() : m.end()] = new
        elif op == 5:  # replace a PDF token with another
            tok = rng.choice(_TOKENS)
            hits = [m.start() for m in re.finditer(re.escape(tok), buf)]
            if hits:
                k = rng.choice(hits)
                buf[k : k + len(tok)] = rng.choice(_TOKENS)
        elif op == 6:  # insert garbage
            buf[i:i] = rng.randbytes(rng.randint(1, 256))
        elif op == 7:  # nest brackets/dicts deeply
            buf[i:i] = rng.choice([b"[", b"<<", b"q "]) * rng.randint(50, 5000)
        elif op == 8:  # huge numbers in a MediaBox-like place
            buf[i:i] = b"/MediaBox [0 0 %d %d]" % (
                rng.choice([0, 1, 10**9, 14400]),
                rng.choice([0, 1, 10**9, 14400]),
            )
        else:  # splice the tail of one part onto another
            j = rng.randrange(len(buf))
            buf[i:] = buf[j:][:MAX_INPUT]
    return bytes(buf[:MAX_INPUT])


def check_ingest(folder: Path, data_dir: Path) -> tuple[int, int, int]:
    """Scan + render a folder; raise AssertionError if the ingest contract is broken.

    Returns (documents, rendered pages, rejected items)."""
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.pdf"))
    scan = scan_corpus(folder)
    seen = {p for d in scan.documents for p in d.paths} | {r.path for r in scan.rejected}
    assert seen == set(files), f"files neither taken nor rejected: {set(files) ^ seen}"
    out = render_corpus(scan.documents, folder, data_dir, data_dir / "renders", SETTINGS, workers=1)
    pages = {(p.document_sha256, p.page_number) for p in out.pages} | {
        (r.document_sha256, r.page_number) for r in out.rejected
    }
    want = {(d.document_sha256, n) for d in scan.documents for n in range(1, d.page_count + 1)}
    assert pages == want, f"pages neither rendered nor rejected: {len(want ^ pages)}"
    for p in out.pages:
        assert p.width_px * p.height_px <= SETTINGS.max_pixels, (p.width_px, p.height_px)
        assert (data_dir / p.render_path).is_file() and (data_dir / p.thumb_path).is_file()
    return len(scan.documents), len(out.pages), len(scan.rejected) + len(out.rejected)


def run_one(datas: list[bytes], work: Path) -> tuple[int, int, int]:
    """Write inputs as PDFs into a fresh folder and check the ingest on them."""
    if work.exists():
        shutil.rmtree(work)
    folder = work / "corpus"
    folder.mkdir(parents=True)
    for k, data in enumerate(datas):
        (folder / f"m{k}.pdf").write_bytes(data)
    return check_ingest(folder, work / "data")


def fuzz(seconds: float, seed: int, crash_dir: Path, batch: int = 4, quiet: bool = False) -> int:
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)  # MuPDF's own complaints are expected here
    pymupdf.TOOLS.mupdf_display_warnings(False)
    rng = random.Random(seed)
    seeds = seed_pdfs()
    deadline = time.monotonic() + seconds
    runs = inputs = docs = pages = rejected = 0
    with tempfile.TemporaryDirectory(prefix="fuzz-ingest-") as tmp:
        while time.monotonic() < deadline:
            datas = []
            for _ in range(batch):
                data = rng.choice(seeds)
                for _ in range(rng.choice([1, 1, 2, 3])):
                    data = mutate(data, rng)
                datas.append(data)
            try:
                d, p, r = run_one(datas, Path(tmp) / "w")
            except BaseException as exc:  # noqa: BLE001 - report anything, including AssertionError
                if isinstance(exc, KeyboardInterrupt):
                    raise
                crash_dir.mkdir(parents=True, exist_ok=True)
                for k, data in enumerate(datas):
                    (crash_dir / f"crash-{seed}-{runs}-{k}.pdf").write_bytes(data)
                print(
                    f"FAILED after {runs} runs: {type(exc).__name__}: {exc}; inputs in {crash_dir}",
                    file=sys.stderr,
                )
                traceback.print_exc()
                return 1
            runs += 1
            inputs += len(datas)
            docs, pages, rejected = docs + d, pages + p, rejected + r
    if not quiet:
        print(
            f"fuzz_ingest: {runs} runs, {inputs} mutated PDFs in {seconds:.0f}s (seed {seed}): "
            f"{docs} taken, {pages} pages rendered, {rejected} rejected files/pages; no exception escaped"
        )
    return 0


def fuzz_atheris(seconds: float, crash_dir: Path) -> int:
    """libFuzzer drives the choices: raw bytes as a PDF, or a seed PDF put through `mutate` with a
    libFuzzer-chosen seed. Our ingest code is instrumented, so new reject paths count as coverage
    (MuPDF itself is native and not instrumented)."""
    import atheris

    from evalset_pipeline.core.corpus import documents as _documents
    from evalset_pipeline.core.render import pages as _pages

    for module in (
        _documents,
        _pages,
    ):  # already imported above, so instrument their functions in place
        for value in list(vars(module).values()):
            if (
                callable(value)
                and getattr(value, "__module__", "") == module.__name__
                and hasattr(value, "__code__")
            ):
                atheris.instrument_func(value)
    seeds = seed_pdfs()
    work = Path(tempfile.mkdtemp(prefix="fuzz-ingest-atheris-"))

    def one(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        if fdp.ConsumeBool():
            pdf = fdp.ConsumeBytes(MAX_INPUT)
        else:
            pdf = seeds[fdp.ConsumeIntInRange(0, len(seeds) - 1)]
            rng = random.Random(fdp.ConsumeInt(8))
            for _ in range(fdp.ConsumeIntInRange(1, 4)):
                pdf = mutate(pdf, rng)
        run_one([pdf], work / "w")

    crash_dir.mkdir(parents=True, exist_ok=True)
    atheris.Setup(
        [sys.argv[0], f"-max_total_time={int(seconds)}", f"-artifact_prefix={crash_dir}/"], one
    )
    atheris.Fuzz()
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SEED", "0")))
    ap.add_argument("--crash-dir", type=Path, default=Path("data/artifacts/fuzz-crashes"))
    ap.add_argument(
        "--atheris",
        action="store_true",
        help="drive inputs with atheris/libFuzzer (pip install atheris)",
    )
    args = ap.parse_args(argv)
    if args.atheris:
        return fuzz_atheris(args.seconds, args.crash_dir)
    return fuzz(args.seconds, args.seed, args.crash_dir)


if __name__ == "__main__":
    sys.exit(main())
