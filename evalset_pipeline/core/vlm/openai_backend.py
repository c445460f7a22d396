"""`openai`: the question writer, judge, labeller and rewriter as a vision-language model behind
any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp, ...).

What goes in: the task's prompt file (core/vlm/prompts/<task>.md) as the system message, the
task's input as JSON, and the page as a base64 PNG (downscaled when its longer side exceeds
`image_max_side`). What comes out: one JSON object, requested as structured output where the
server supports it (`response_format` json_schema), else JSON mode, else plain text; validated
with pydantic and checked for sense (core/vlm/replies.py).

Faults, and what each one does:
  - 429, 5xx, timeouts, dropped connections: retried by the openai client itself (`max_retries`,
    exponential backoff with jitter, honouring Retry-After). If they persist, the endpoint is
    failing: no new requests start, the ones in flight finish, and `EndpointError` names the
    endpoint and the last error. 401/403/404 mean a wrong key, model or URL: same.
  - A reply that is not usable (bad JSON, wrong schema, nonsense for the task): one repair
    request (the conversation so far plus what was wrong); if that is unusable too, the call
    has failed for good. A refusal has failed for good at once.
  - Failed calls never become results. When a batch has any, the backend finishes the batch and
    raises `BatchError` carrying the completed results (the call cache stores them) and the
    failures with their raw replies (the cache's ledger records them); the run fails with a
    message that counts them, and the next run asks again only for what failed.
  - It never falls back to the `textlayer` backend.

Secrets: the API key is read from the environment variable named by `api_key_env` when the
client is first built (not before: a fully cached rebuild needs no key), handed to the client,
and written nowhere; error messages are scrubbed of it.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from evalset_pipeline.core.judging.base import (
    TASKS,
    BatchError,
    CallFailure,
    CallUsage,
    EndpointError,
    Judgment,
    LabelResult,
    PageView,
    Qualifiers,
    Rewrite,
    WrittenQuestion,
)
from evalset_pipeline.core.redact import redact, register_secret_env
from evalset_pipeline.core.vlm.prompt_files import PromptFile, load_prompt
from evalset_pipeline.core.vlm.replies import InvalidReply, parse_reply

__all__ = ["OpenAIBackend", "DEFAULT_BASE_URL", "RESPONSE_FORMATS"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Most to least constrained; "auto" starts at the first and steps down when the server says no.
RESPONSE_FORMATS = ("json_schema", "json_object", "none")
_MAX_IMAGE_CACHE = 32
_FORMAT_COMPLAINT = re.compile(r"response_format|json_schema|json_object|structured|schema", re.I)


@dataclass(frozen=True)
class _Request:
    task: str
    inputs: dict[str, Any] | None
    page: PageView | None


class _Failed(Exception):
    """This one request failed for good (the batch goes on)."""

    def __init__(self, error: str, raw: list[str], usage: CallUsage | None):
        super().__init__(error)
        self.error, self.raw, self.usage = error, raw, usage


class _EndpointDown(Exception):
    """The endpoint is failing (the batch stops starting requests)."""


def _add(a: CallUsage, b: CallUsage) -> CallUsage:
    return CallUsage(
        a.prompt_tokens + b.prompt_tokens,
        a.completion_tokens + b.completion_tokens,
        a.latency_s + b.latency_s,
    )


class OpenAIBackend:
    """VLMBackend over an OpenAI-compatible endpoint; batches run `max_in_flight` requests at a time."""

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        max_in_flight: int = 16,
        image_max_side: int = 1600,
        timeout_s: float = 60.0,
        max_retries: int = 5,
        response_format: str = "auto",
        temperature: float | None = 0.0,
        prompts_dir: str | Path | None = None,
    ):
        if not model:
            raise ValueError(
                "the openai backend needs a model name (evalset build --model NAME, or vlm.model)"
            )
        if response_format not in ("auto", *RESPONSE_FORMATS):
            raise ValueError(
                f"response_format must be auto or one of {', '.join(RESPONSE_FORMATS)}"
            )
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip(
            "/"
        )
        self.api_key_env = api_key_env  # the variable's name; its value goes to the client only
        register_secret_env(api_key_env)  # and is scrubbed from everything persisted or printed
        self.max_in_flight = max(1, int(max_in_flight))
        self.image_max_side = int(image_max_side)
        self.timeout_s = float(timeout_s)
        self.max_retries = int(max_retries)
        self.temperature = temperature
        self.prompts: dict[str, PromptFile] = {t: load_prompt(t, prompts_dir) for t in TASKS}
        self._auto_format = response_format == "auto"
        self._format = RESPONSE_FORMATS[0] if self._auto_format else response_format
        self._client: Any = None
        self._lock = threading.Lock()
        self._images: OrderedDict[tuple[str, str], str] = OrderedDict()

    @classmethod
    def from_config(cls, config: Any) -> OpenAIBackend:
        """From a `VLMConfig` (core/backends/factory.py); optional knobs it may not carry get defaults."""
        return cls(
            config.model,
            base_url=config.base_url,
            api_key_env=config.api_key_env,
            max_in_flight=config.max_in_flight,
            image_max_side=config.image_max_side,
            timeout_s=config.timeout_s,
            max_retries=config.max_retries,
            response_format=getattr(config, "response_format", "auto"),
            temperature=getattr(config, "temperature", 0.0),
            prompts_dir=getattr(config, "prompts_dir", None),
        )

    def __repr__(self) -> str:  # never the key
        return f"OpenAIBackend(model={self.model!r}, base_url={self.base_url!r}, api_key_env={self.api_key_env!r})"

    # --- the VLMBackend interface -----------------------------------------------------------------

    def prompt_hash(self, task: str) -> str:
        if task not in self.prompts:
            raise ValueError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
        return self.prompts[task].hash

    def write_questions(self, pages: Sequence[PageView]) -> list[WrittenQuestion | None]:
        return self._batch([_Request("write", None, p) for p in pages])

    def judge(self, pairs: Sequence[tuple[str, PageView]]) -> list[Judgment]:
        return self._batch(
            [_Request("judge", {"question": q, **_document(p)}, p) for q, p in pairs]
        )

    def label(self, triples: Sequence[tuple[str, str, PageView]]) -> list[LabelResult]:
        return self._batch(
            [
                _Request("label", {"question": q, "reference_answer": a, **_document(p)}, p)
                for q, a, p in triples
            ]
        )

    def qualify(self, items: Sequence[tuple[str, Qualifiers]]) -> list[str]:
        return self._batch(
            [
                _Request(
                    "qualify",
                    {"question": q, "qualifiers": dict(quals.values), "language": quals.language},
                    None,
                )
                for q, quals in items
            ]
        )

    # --- batches ----------------------------------------------------------------------------------

    def _batch(self, requests: list[_Request]) -> list[Any]:
        if not requests:
            return []
        results: dict[int, Any] = {}
        failures: list[CallFailure] = []
        down: list[str] = []
        stop = threading.Event()

        def work(i: int) -> None:
            if stop.is_set():
                return  # the endpoint is failing: do not start more
            try:
                results[i] = self._call(requests[i])
            except _Failed as f:
                failures.append(
                    CallFailure(i, f.error, json.dumps(f.raw, ensure_ascii=False), f.usage)
                )
            except _EndpointDown as e:
                down.append(str(e))
                stop.set()

        workers = min(self.max_in_flight, len(requests))
        if workers == 1:
            for i in range(len(requests)):
                work(i)
        else:
            with ThreadPoolExecutor(workers, thread_name_prefix="vlm") as pool:
                list(pool.map(work, range(len(requests))))
        task = requests[0].task
        if down:
            raise EndpointError(
                f"VLM endpoint {self.base_url} (model {self.model!r}) is failing: {down[-1]}. "
                f"{len(results)} of {len(requests)} {task} calls in this batch completed; the call cache keeps "
                f"them and every earlier one, so a re-run resumes here. Nothing falls back to the textlayer backend.",
                results,
                failures,
            )
        if failures:
            failures.sort(key=lambda f: f.index)
            kinds = Counter(f.error.split(":")[0] for f in failures)
            first = failures[0]
            raise BatchError(
                f"{len(failures)} of {len(requests)} {task} calls to {self.base_url} (model {self.model!r}) failed "
                f"for good ({', '.join(f'{k}: {n}' for k, n in sorted(kinds.items()))}); first: {first.error}; "
                f"raw reply {_clip(first.raw, 300)}. Failed calls are recorded with their raw replies in the ledger "
                f"table model_call_failures and never cached; completed calls are cached, so a re-run asks only for "
                f"the failed ones.",
                results,
                failures,
            )
        return [results[i] for i in range(len(requests))]

    # --- one call, with one repair --------------------------------------------------------------------

    def _call(self, req: _Request) -> Any:
        prompt = self.prompts[req.task]
        try:
            user: Any = prompt.user_text(req.inputs)
            if req.page is not None:
                user = [
                    {"type": "text", "text": user},
                    {"type": "image_url", "image_url": {"url": self._data_url(req.page)}},
                ]
        except OSError as exc:
            raise _Failed(f"page image unreadable: {type(exc).__name__}: {exc}", [], None) from None
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": user},
        ]
        raw, usage, refusal = self._complete(req.task, messages)
        if refusal is not None:
            raise _Failed(f"refused: {_clip(refusal, 200)}", [refusal], usage)
        try:
            result = parse_reply(req.task, raw)
        except InvalidReply as first:
            messages += [
                {"role": "assistant", "content": raw},
                {"role": "user", "content": prompt.repair_text(str(first))},
            ]
            raw2, usage2, refusal2 = self._complete(req.task, messages)
            usage = _add(usage, usage2)
            if refusal2 is not None:
                raise _Failed(
                    f"refused: {_clip(refusal2, 200)} (on repair; first reply: {first})",
                    [raw, refusal2],
                    usage,
                ) from first
            try:
                result = parse_reply(req.task, raw2)
            except InvalidReply as second:
                raise _Failed(
                    f"invalid reply after one repair attempt: {second} (first reply: {first})",
                    [raw, raw2],
                    usage,
                ) from None
        return self._with_usage(result, usage)

    @staticmethod
    def _with_usage(result: Any, usage: CallUsage | None) -> Any:
        if result is None:
            return None  # write: the page offers nothing to ask
        if isinstance(result, str):
            return Rewrite(result, usage)
        return replace(result, usage=usage)

    def _complete(
        self, task: str, messages: list[dict[str, Any]]
    ) -> tuple[str, CallUsage, str | None]:
        """One chat completion (the client retries transient faults): (text, usage, refusal or None)."""
        import openai

        client = self._get_client()
        start = time.perf_counter()
        while True:
            fmt, temperature = self._format, self.temperature
            kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
            if fmt == "json_schema":
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {
                        "name": f"evalset_{task}",
                        "schema": self.prompts[task].schema,
                        "strict": True,
                    },
                }
            elif fmt == "json_object":
                kwargs["response_format"] = {"type": "json_object"}
            if temperature is not None:
                kwargs["temperature"] = temperature
            try:
                response = client.chat.completions.create(**kwargs)
                break
            except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
                if self._step_down(exc, fmt, temperature):
                    continue  # the server does not support what we asked for: ask again without it
                raise _Failed(f"request rejected: {self._describe(exc)}", [], None) from None
            except openai.APITimeoutError as exc:
                raise _EndpointDown(
                    f"requests time out (after {self.timeout_s:g}s, {self.max_retries} retries with "
                    f"exponential backoff; last error: {self._describe(exc)})"
                ) from None
            except openai.APIConnectionError as exc:
                raise _EndpointDown(
                    f"cannot connect ({self.max_retries} retries with exponential backoff; "
                    f"last error: {self._describe(exc)})"
                ) from None
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise _EndpointDown(
                    f"not authorised; is the key in ${self.api_key_env} right? "
                    f"({self._describe(exc)})"
                ) from None
            except openai.NotFoundError as exc:
                raise _EndpointDown(
                    f"not found; check the base URL and the model name ({self._describe(exc)})"
                ) from None
            except openai.APIStatusError as exc:
                raise _EndpointDown(
                    f"gave up after {self.max_retries} retries with exponential backoff; last error: "
                    f"{self._describe(exc)}"
                ) from None
            except openai.OpenAIError as exc:
                raise _EndpointDown(self._describe(exc)) from None
        latency = time.perf_counter() - start
        usage = CallUsage(
            int(getattr(response.usage, "prompt_tokens", 0) or 0) if response.usage else 0,
            int(getattr(response.usage, "completion_tokens", 0) or 0) if response.usage else 0,
            latency,
        )
        if not response.choices:
            return "", usage, None
        choice = response.choices[0]
        message = choice.message
        refusal = getattr(message, "refusal", None)
        # Replies are scrubbed on the way in: an endpoint that echoes the Authorization header
        # must not get the key into rationales, the cache, the failure ledger or Dagster's logs.
        if refusal:
            return "", usage, redact(str(refusal))
        if choice.finish_reason == "content_filter" and not message.content:
            return "", usage, "blocked by the server's content filter"
        return redact(message.content or ""), usage, None

    def _step_down(self, exc: Exception, fmt: str, temperature: float | None) -> bool:
        """After a 400/422: stop sending what the server rejected (a response format it does not
        support, or a temperature the model does not take), once for all later requests."""
        text = str(exc)
        with self._lock:
            if self._format != fmt or self.temperature != temperature:
                return True  # another request already stepped down: retry with the new settings
            if temperature is not None and "temperature" in text.lower():
                self.temperature = None
                return True
            if self._auto_format and fmt != RESPONSE_FORMATS[-1] and _FORMAT_COMPLAINT.search(text):
                self._format = RESPONSE_FORMATS[RESPONSE_FORMATS.index(fmt) + 1]
                return True
        return False

    @property
    def response_format(self) -> str:
        """The format requests use now ("json_schema" until a server says it cannot)."""
        return self._format

    # --- plumbing -------------------------------------------------------------------------------

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                import openai

                key = os.environ.get(self.api_key_env, "")
                if not key:
                    if self.base_url == DEFAULT_BASE_URL:
                        raise _EndpointDown(
                            f"no API key: set the environment variable {self.api_key_env}"
                        )
                    key = "no-key"  # local servers (vLLM, Ollama) take any key unless started with one
                self._client = openai.OpenAI(
                    api_key=key,
                    base_url=self.base_url,
                    timeout=self.timeout_s,
                    max_retries=self.max_retries,
                )
            return self._client

    def _describe(self, exc: Exception) -> str:
        text = f"{type(exc).__name__}: {exc}"
        key = getattr(self._client, "api_key", None)
        if isinstance(key, str) and len(key) >= 4:
            text = text.replace(key, "[redacted]")
        return _clip(redact(text), 400)

    def _data_url(self, page: PageView) -> str:
        """The page as a base64 PNG data URL; the file's own bytes unless it must be downscaled."""
        key = (str(page.image_path), page.image_hash)
        with self._lock:
            if key in self._images:
                self._images.move_to_end(key)
                return self._images[key]
        data = Path(page.image_path).read_bytes()
        data = _fit(data, self.image_max_side)
        url = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
        with self._lock:
            self._images[key] = url
            while len(self._images) > _MAX_IMAGE_CACHE:
                self._images.popitem(last=False)
        return url


def _fit(png: bytes, max_side: int) -> bytes:
    """The image as PNG with its longer side at most `max_side` pixels (unchanged bytes if it fits)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as opened:
        w, h = opened.size
        if opened.format == "PNG" and (max_side <= 0 or max(w, h) <= max_side):
            return png
        im: Image.Image = opened
        if max_side > 0 and max(w, h) > max_side:
            scale = max_side / max(w, h)
            im = opened.resize(
                (max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.LANCZOS
            )
        out = io.BytesIO()
        im.save(out, format="PNG", optimize=True)
        return out.getvalue()


def _clip(text: str, n: int) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def _document(page: PageView) -> dict[str, Any]:
    """The page's document, as the retriever's index shows it (registrant, form, fiscal period)."""
    return {"document": page.context.as_dict()} if page.context is not None else {}
