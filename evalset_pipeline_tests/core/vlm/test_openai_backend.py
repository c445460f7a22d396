"""The `openai` backend against a local OpenAI-compatible server (real sockets, the real client)."""

from __future__ import annotations

import hashlib
import json
import shutil

import duckdb
import pymupdf
import pytest

from evalset_pipeline.core.backends.factory import VLMConfig, make_backend
from evalset_pipeline.core.judging.base import (
    BatchError,
    EndpointError,
    PageView,
    Qualifiers,
    Rewrite,
)
from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline.core.reader.textlayer import TextLayerBackend, qualify_question
from evalset_pipeline.core.vlm.cache import CachedBackend, CallCache, Prices
from evalset_pipeline.core.vlm.openai_backend import OpenAIBackend, _fit
from evalset_pipeline.core.vlm.prompt_files import PROMPTS_DIR, load_prompt
from evalset_pipeline.core.vlm.replies import REPLY_MODELS, InvalidReply, parse_reply
from evalset_pipeline_tests.support.fake_vlm_server import (
    FakeVLMServer,
    PageIndex,
    dead_endpoint_url,
)

KEY = "sk-test-DO-NOT-LEAK-1234"
TASKS = ("write", "judge", "label", "qualify")


@pytest.fixture(scope="module")
def pages(small_corpus, tmp_path_factory) -> list[PageView]:
    """A dozen real pages of the sample corpus, rendered as the pipeline does (PNG + text layer)."""
    out = tmp_path_factory.mktemp("pages")
    views = []
    for pdf in sorted(small_corpus.rglob("*.pdf"))[:4]:
        with pymupdf.open(pdf) as doc:
            for number in range(min(3, doc.page_count)):
                page = doc.load_page(number)
                png = page.get_pixmap(matrix=pymupdf.Matrix(96 / 72, 96 / 72), alpha=False).tobytes(
                    "png"
                )
                stem = out / f"{pdf.stem}-{number}"
                stem.with_suffix(".png").write_bytes(png)
                stem.with_suffix(".json").write_text(
                    json.dumps(text_layer_of(page)), encoding="utf-8"
                )
                views.append(
                    PageView(
                        stem.name,
                        stem.with_suffix(".png"),
                        stem.with_suffix(".json"),
                        hashlib.sha256(png).hexdigest(),
                    )
                )
    return views


@pytest.fixture
def server(pages):
    index = PageIndex()
    for p in pages:
        index.add(p.image_path, p.text_path)
    with FakeVLMServer(index) as srv:
        yield srv


@pytest.fixture
def backend(server, monkeypatch) -> OpenAIBackend:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return OpenAIBackend("fake-vlm", base_url=server.url, max_retries=3)


def _written(pages):
    """(question, answer, page) for the pages the offline writer finds a question on."""
    tl = TextLayerBackend()
    return [
        (w.question, w.answer, p)
        for w, p in zip(tl.write_questions(pages), pages, strict=False)
        if w is not None
    ]


# --- prompts and replies ---------------------------------------------------------------------------


def test_prompt_files_are_versioned_hashed_and_agree_with_the_reply_models():
    for task in TASKS:
        prompt = load_prompt(task)
        assert prompt.version.startswith(f"{task}-")
        assert (
            prompt.hash
            == hashlib.sha256((PROMPTS_DIR / f"{task}.md").read_bytes()).hexdigest()[:16]
        )
        assert set(prompt.schema["properties"]) == set(REPLY_MODELS[task].model_fields)
        assert set(prompt.schema["required"]) == set(
            prompt.schema["properties"]
        )  # strict structured outputs
        assert prompt.schema["additionalProperties"] is False
    assert len({load_prompt(t).hash for t in TASKS}) == 4


def test_editing_one_prompt_file_changes_only_that_tasks_hash(tmp_path):
    shutil.copytree(PROMPTS_DIR, tmp_path / "prompts")
    before = OpenAIBackend("m", base_url="http://127.0.0.1:9/v1", prompts_dir=tmp_path / "prompts")
    judge = tmp_path / "prompts" / "judge.md"
    judge.write_text(judge.read_text().replace("one short sentence", "one sentence"))
    after = OpenAIBackend("m", base_url="http://127.0.0.1:9/v1", prompts_dir=tmp_path / "prompts")
    assert after.prompt_hash("judge") != before.prompt_hash("judge")
    assert all(after.prompt_hash(t) == before.prompt_hash(t) for t in ("write", "label", "qualify"))


@pytest.mark.parametrize(
    "task, reply",
    [
        ("write", {"has_question": True, "question": "  ", "answer": "42", "language": "en"}),
        (
            "write",
            {"has_question": True, "question": "Q?", "answer": "42", "language": "English please"},
        ),
        ("judge", {"answers": True, "answer": None, "reason": "x"}),
        ("judge", {"answers": "yes", "answer": "42", "reason": "x"}),
        ("label", {"label": "relevant", "rationale": "x"}),
        ("label", {"rationale": "x"}),
        ("qualify", {"question": ""}),
    ],
)
def test_valid_json_that_is_nonsense_for_the_task_is_rejected(task, reply):
    with pytest.raises(InvalidReply):
        parse_reply(task, json.dumps(reply))


def test_replies_tolerate_fences_case_and_a_declined_page():
    assert (
        parse_reply("label", '```json\n{"label": "Sufficient", "rationale": "a\\nb"}\n```').label
        == "sufficient"
    )
    assert (
        parse_reply(
            "write", '{"has_question": false, "question": "", "answer": "", "language": ""}'
        )
        is None
    )
    j = parse_reply(
        "judge", 'Here you go: {"answers": false, "answer": "ignored", "reason": "other period"}'
    )
    assert (j.answers, j.answer) == (False, None)


# --- the four tasks ----------------------------------------------------------------------------------


def test_four_tasks_answer_like_the_page_and_carry_usage(backend, server, pages):
    tl = TextLayerBackend()
    written = backend.write_questions(pages)
    assert written == tl.write_questions(pages) and any(written)
    triples = _written(pages)
    pairs = [(q, p) for q, _, p in triples] + [(triples[0][0], p) for p in pages]
    assert backend.judge(pairs) == tl.judge(pairs)
    assert backend.label(triples) == tl.label(triples)
    items = [
        (q, Qualifiers({"period": "2024-Q3", "entity": "Acme Group"}, "en"))
        for q, _, _ in triples[:3]
    ]
    rewrites = backend.qualify(items)
    assert rewrites == [qualify_question(q, quals) for q, quals in items]
    assert all(isinstance(r, Rewrite) and r.usage.prompt_tokens > 0 for r in rewrites)
    for result in [*[w for w in written if w], *backend.judge(pairs[:2])]:
        assert result.usage.prompt_tokens > 1000  # the page image is in the prompt
        assert result.usage.completion_tokens > 0 and result.usage.latency_s > 0
    assert server.by_task() == {
        "write": len(pages),
        "judge": len(pairs) + 2,
        "label": len(triples),
        "qualify": 3,
    }
    assert server.authorizations == {f"Bearer {KEY}"}  # the key came from OPENAI_API_KEY
    assert {r.response_format for r in server.requests} == {"json_schema"}


def test_key_from_a_named_variable_and_base_url_from_OPENAI_BASE_URL(server, pages, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("MY_VLM_KEY", "sk-test-other-5678")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    b = make_backend(VLMConfig(backend="openai", model="fake-vlm", api_key_env="MY_VLM_KEY"))
    assert isinstance(b, OpenAIBackend) and b.base_url == server.url
    b.write_questions(pages[:2])
    assert server.authorizations == {"Bearer sk-test-other-5678"}
    assert "sk-test" not in repr(b)


def test_a_server_without_structured_outputs_gets_json_mode(server, pages, monkeypatch):
    server.reject_json_schema = True
    b = OpenAIBackend("fake-vlm", base_url=server.url)
    assert b.write_questions(pages[:4]) == TextLayerBackend().write_questions(pages[:4])
    assert b.response_format == "json_object"
    formats = [r.response_format for r in server.requests]
    assert formats.count("json_schema") >= 1 and formats[-1] == "json_object"
    assert formats.count("json_schema") <= 4  # stepped down once for all, not per request forever


def test_a_model_that_rejects_temperature_is_asked_without_it(server, pages):
    server.reject_params = ("temperature",)
    b = OpenAIBackend("fake-vlm", base_url=server.url)
    assert b.write_questions(pages[:3]) == TextLayerBackend().write_questions(pages[:3])
    assert b.temperature is None


# --- throughput --------------------------------------------------------------------------------------


def test_requests_run_max_in_flight_at_a_time(server, pages):
    server.latency_s = 0.2
    b = OpenAIBackend("fake-vlm", base_url=server.url, max_in_flight=8)
    q = _written(pages)[0][0]
    b.judge([(q, pages[i % len(pages)]) for i in range(32)])
    # Counted by the server, not timed: with 0.2 s a reply, 8 requests overlapped at the peak and
    # never more (32 in 4 rounds, not 32 one after the other nor 32 at once).
    assert server.max_in_flight == 8


# --- faults ------------------------------------------------------------------------------------------


def test_transient_faults_are_retried_and_the_batch_completes(backend, server, pages):
    for kind, times in (("429", 2), ("500", 1), ("503", 1), ("disconnect", 1)):
        server.inject(kind, times)
    assert backend.write_questions(pages) == TextLayerBackend().write_questions(pages)
    assert server.faults_served() == {"429": 2, "500": 1, "503": 1, "disconnect": 1}


def test_a_slow_reply_times_out_and_is_retried(server, pages):
    server.inject("slow", 1, delay_s=1.5)
    b = OpenAIBackend("fake-vlm", base_url=server.url, timeout_s=0.5, max_in_flight=1)
    assert b.write_questions(pages[:2]) == TextLayerBackend().write_questions(pages[:2])
    assert server.faults_served() == {"slow": 1} and server.count("write") == 3


def test_malformed_output_gets_one_repair_request(backend, server, pages):
    server.inject("malformed", 1, task="judge")
    pairs = [(q, p) for q, _, p in _written(pages)]
    assert backend.judge(pairs) == TextLayerBackend().judge(pairs)
    repairs = [r for r in server.requests if r.repair]
    assert len(repairs) == 1 and repairs[0].task == "judge"
    assert server.count("judge") == len(pairs) + 1


def test_nonsense_twice_fails_the_call_which_is_recorded_not_cached(
    server, pages, tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    triples = _written(pages)
    bad = triples[1][2].image_hash
    server.inject("nonsense", None, task="label", repairs=True, when=lambda r: r.image_hash == bad)
    cache = CallCache(tmp_path / "calls.duckdb")
    cached = CachedBackend(OpenAIBackend("fake-vlm", base_url=server.url), cache, Prices(2.5, 10.0))
    with pytest.raises(BatchError) as err:
        cached.label(triples)
    message = str(err.value)
    assert (
        "1 of" in message
        and "invalid reply after one repair attempt" in message
        and server.url in message
    )
    assert not isinstance(err.value, EndpointError)
    con = cache._con
    stored = con.execute(
        "SELECT image_hash, response_json FROM model_calls WHERE task = 'label'"
    ).fetchall()
    assert len(stored) == len(triples) - 1 and bad not in {h for h, _ in stored}
    assert {json.loads(r)["label"] for _, r in stored} <= {"sufficient", "supporting", "irrelevant"}
    failure = con.execute(
        "SELECT image_hash, error, raw_text, prompt_tokens, cost_usd FROM model_call_failures"
    ).fetchall()
    assert len(failure) == 1 and failure[0][0] == bad
    attempts = json.loads(failure[0][2])  # the raw replies, verbatim: the answer and its repair
    assert len(attempts) == 2 and all(json.loads(a)["label"] == "relevant" for a in attempts)
    assert (
        failure[0][3] > 0 and failure[0][4] > 0
    )  # a failed call still spent tokens: on the ledger
    # Fixed: the rerun asks only for the failed call.
    server.clear_faults()
    before = server.count()
    labels = cached.label(triples)
    assert server.count() - before == 1
    assert labels == TextLayerBackend().label(triples)
    cache.close()


def test_a_refusal_fails_the_call_without_a_repair(backend, server, pages):
    server.inject("refusal", 1, task="write")
    with pytest.raises(BatchError, match="refused"):
        backend.write_questions(pages[:3])
    assert server.count("write") == 3 and not any(r.repair for r in server.requests)


def test_a_dead_endpoint_fails_with_a_message_naming_it(pages, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    url = dead_endpoint_url()
    b = OpenAIBackend("fake-vlm", base_url=url, max_retries=1)
    with pytest.raises(EndpointError) as err:
        b.judge([("Which segment had the highest revenue?", p) for p in pages[:3]])
    assert (
        url in str(err.value) and "cannot connect" in str(err.value) and KEY not in str(err.value)
    )


def test_an_endpoint_that_keeps_failing_stops_starting_requests(server, pages):
    server.inject("503", None)
    b = OpenAIBackend("fake-vlm", base_url=server.url, max_retries=2, max_in_flight=4)
    with pytest.raises(EndpointError, match="503") as err:
        b.judge(
            [("Which segment had the highest revenue?", pages[i % len(pages)]) for i in range(40)]
        )
    assert server.url in str(err.value)
    assert server.count() <= 4 * 3 + 4  # the requests in flight and their retries, not all 40


def test_a_wrong_key_fails_clearly_without_showing_the_key(server, pages, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.inject("401", None)
    b = OpenAIBackend("fake-vlm", base_url=server.url)
    with pytest.raises(EndpointError, match="not authorised") as err:
        b.write_questions(pages[:1])
    assert (
        "OPENAI_API_KEY" in str(err.value)
        and KEY not in str(err.value)
        and KEY not in repr(err.value)
    )


def test_openai_itself_without_a_key_fails_before_any_request(monkeypatch, pages):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    b = OpenAIBackend("gpt-4o-mini")
    assert b.prompt_hash("judge")  # identity needs no key: a fully cached rebuild needs none
    with pytest.raises(
        EndpointError, match="no API key: set the environment variable OPENAI_API_KEY"
    ):
        b.write_questions(pages[:1])


# --- cache and ledger --------------------------------------------------------------------------------


def test_a_second_run_with_nothing_changed_makes_no_calls(backend, server, pages, tmp_path):
    triples = _written(pages)
    prices = Prices(input_per_mtok=2.5, output_per_mtok=10.0)

    def run():
        cache = CallCache(tmp_path / "calls.duckdb")
        cached = CachedBackend(backend, cache, prices)
        cached.write_questions(pages)
        cached.judge([(q, p) for q, _, p in triples])
        cached.label(triples)
        cached.qualify([(q, Qualifiers({"period": "2024-Q3"}, "en")) for q, _, _ in triples])
        cache.close()
        return cached.stats

    first = run()
    asked = server.count()
    second = run()
    assert server.count() == asked and sum(second.calls.values()) == 0
    assert sum(first.calls.values()) == asked and first.prompt_tokens > 0
    assert (
        second.total_prompt_tokens == first.total_prompt_tokens
    )  # what the results cost, from the ledger
    spent = (first.prompt_tokens * 2.5 + first.completion_tokens * 10.0) / 1e6
    assert first.cost_usd == pytest.approx(spent) and first.total_cost_usd >= first.cost_usd
    assert second.total_cost_usd == pytest.approx(first.total_cost_usd) and second.cost_usd == 0
    with duckdb.connect(str(tmp_path / "calls.duckdb"), read_only=True) as con:
        rows = dict(
            con.execute("SELECT task, min(prompt_tokens) FROM model_calls GROUP BY task").fetchall()
        )
        hashes = dict(con.execute("SELECT DISTINCT task, prompt_hash FROM model_calls").fetchall())
    assert set(rows) == set(TASKS) and rows["qualify"] > 0  # qualify's usage reaches the ledger too
    assert hashes == {t: load_prompt(t).hash for t in TASKS}


def test_pages_over_the_size_cap_are_downscaled(pages):
    from io import BytesIO

    from PIL import Image

    png = pages[0].image_path.read_bytes()
    assert _fit(png, 4000) is png or _fit(png, 4000) == png
    small = Image.open(BytesIO(_fit(png, 320)))
    assert small.format == "PNG" and max(small.size) == 320


def test_a_request_repeated_within_a_batch_is_asked_once(backend, server, pages, tmp_path):
    q = _written(pages)[0][0]
    cache = CallCache(tmp_path / "calls.duckdb")
    cached = CachedBackend(backend, cache)
    pairs = [(q, pages[0]), (q, pages[1]), (q, pages[0]), (q, pages[0])]
    results = cached.judge(pairs)
    cache.close()
    assert server.count() == 2 and results[0] == results[2] == results[3]
    assert cached.stats.calls == {"judge": 2} and cached.stats.cache_hits == {"judge": 2}
