"""A local OpenAI-compatible chat-completions server for tests and benchmarks.

It listens on 127.0.0.1 (a free port) and is spoken to by the real `openai` client over real
sockets. It receives only what a real vision-language model gets: the prompt and the page image.
To answer, it does what a model would do with the page, using the project's offline reader: it
hashes the PNG it was sent, finds that page's text layer in a `PageIndex` (sha256 of the PNG ->
text-layer JSON, built from a data directory's renders), and answers the task with the
`textlayer` logic. Which task a request is comes from its system prompt (one of the prompt
files), the task's input from the JSON in the user message.

It counts every request (and the most it ever had in flight), and can inject faults: 401, 429,
500, 503 (with a short Retry-After so tests stay fast), slow replies, dropped connections,
malformed JSON, valid JSON that is nonsense for the task, refusals; and it can play a server that
rejects structured outputs or a parameter such as `temperature`. Token counts in its replies
are estimates (about 4 characters a token, plus OpenAI's tile formula for images).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from evalset_pipeline.core.judging.base import TASKS, PageView, Qualifiers
from evalset_pipeline.core.reader.textlayer import TextLayerBackend, qualify_question
from evalset_pipeline.core.vlm.prompt_files import load_prompt

__all__ = [
    "FakeVLMServer",
    "PageIndex",
    "RequestInfo",
    "Fault",
    "FAULT_KINDS",
    "free_port",
    "dead_endpoint_url",
]

FAULT_KINDS = ("401", "429", "500", "503", "slow", "disconnect", "malformed", "nonsense", "refusal")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dead_endpoint_url() -> str:
    """An OpenAI-style base URL where nothing listens (connections are refused)."""
    return f"http://127.0.0.1:{free_port()}/v1"


class PageIndex:
    """sha256 of a page's PNG -> its text-layer JSON path (beside the PNG, same stem)."""

    def __init__(
        self, data_dir: str | Path | None = None, pages: Mapping[str, str | Path] | None = None
    ):
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self._by_hash: dict[str, Path] = {k: Path(v) for k, v in (pages or {}).items()}
        self._seen: set[Path] = set()
        self._lock = threading.Lock()

    def add(self, png_path: str | Path, text_path: str | Path | None = None) -> str:
        png = Path(png_path)
        digest = hashlib.sha256(png.read_bytes()).hexdigest()
        with self._lock:
            self._by_hash[digest] = Path(text_path) if text_path else png.with_suffix(".json")
        return digest

    def lookup(self, digest: str) -> Path | None:
        with self._lock:
            if digest not in self._by_hash and self.data_dir is not None:
                self._scan()  # renders appear while a build runs: look again
            return self._by_hash.get(digest)

    def _scan(self) -> None:
        for png in (self.data_dir / "artifacts" / "renders").rglob("*.png"):
            if png.name.endswith(".thumb.png") or png in self._seen:
                continue
            self._seen.add(png)
            self._by_hash[hashlib.sha256(png.read_bytes()).hexdigest()] = png.with_suffix(".json")


@dataclass
class RequestInfo:
    n: int
    task: str
    image_hash: str
    inputs: dict[str, Any]
    repair: bool  # a follow-up after an unusable reply
    response_format: str  # json_schema | json_object | none
    fault: str = ""  # the fault served, if any


@dataclass
class Fault:
    kind: str
    times: int | None = 1  # None: forever
    task: str | None = None
    when: Callable[[RequestInfo], bool] | None = None
    repairs: bool = False  # also hit repair requests
    retry_after_ms: int | None = (
        1  # for 429 / 5xx; None sends no Retry-After (client backs off itself)
    )
    delay_s: float = 2.0  # for "slow"
    served: int = 0

    def matches(self, info: RequestInfo) -> bool:
        if self.times is not None and self.served >= self.times:
            return False
        if self.task is not None and info.task != self.task:
            return False
        if info.repair and not self.repairs:
            return False
        return self.when is None or bool(self.when(info))


_NONSENSE = {
    "write": {"has_question": True, "question": "", "answer": "42", "language": "en"},
    "judge": {"answers": True, "answer": None, "reason": "it is on the page"},
    "label": {"label": "relevant", "rationale": "looks related"},
    "qualify": {"question": ""},
}


class FakeVLMServer:
    """Start with `with FakeVLMServer(PageIndex(data_dir)) as server:`; `server.url` is the base URL."""

    def __init__(
        self,
        pages: PageIndex | None = None,
        *,
        latency_s: float = 0.0,
        model: str = "fake-vlm",
        reject_json_schema: bool = False,
        reject_params: tuple[str, ...] = (),
        prompts_dir: str | Path | None = None,
        yes_man: bool = False,
        echo_auth: bool = False,
    ):
        self.pages = pages or PageIndex()
        # yes_man: a model that says every page answers every question and labels it sufficient
        # (what the blocking gates exist for). echo_auth: a misbehaving endpoint that echoes the
        # request's Authorization header into every free-text field of its replies.
        self.yes_man = yes_man
        self.echo_auth = echo_auth
        self.latency_s = latency_s
        self.model = model
        self.reject_json_schema = reject_json_schema
        self.reject_params = tuple(reject_params)
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests: list[RequestInfo] = []
        self.faults: list[Fault] = []
        self.authorizations: set[str] = set()
        self._systems = {load_prompt(t, prompts_dir).system: t for t in TASKS}
        self._textlayer = TextLayerBackend()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ----------------------------------------------------------------------------------

    def start(self) -> FakeVLMServer:
        server = self

        class Handler(_Handler):
            fake = server

        class Server(ThreadingHTTPServer):
            request_queue_size = (
                128  # a listen backlog of 5 drops SYNs when 16 clients connect at once
            )

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-vlm",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeVLMServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # --- faults and counts --------------------------------------------------------------------------

    def inject(self, kind: str, times: int | None = 1, **kw: Any) -> Fault:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r}; one of {FAULT_KINDS}")
        fault = Fault(kind, times, **kw)
        with self._lock:
            self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self.faults.clear()

    def count(self, task: str | None = None, *, faults: bool = True) -> int:
        with self._lock:
            return sum(
                1
                for r in self.requests
                if (task is None or r.task == task) and (faults or not r.fault)
            )

    def by_task(self) -> dict[str, int]:
        with self._lock:
            return dict(Counter(r.task for r in self.requests))

    def faults_served(self) -> dict[str, int]:
        with self._lock:
            return dict(Counter(r.fault for r in self.requests if r.fault))

    def _take_fault(self, info: RequestInfo) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(info):
                    fault.served += 1
                    info.fault = fault.kind
                    return fault
        return None

    # --- answering ----------------------------------------------------------------------------------

    def _handle(
        self, body: dict[str, Any], auth: str = ""
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        """(status, JSON body, extra headers); status 0 means drop the connection."""
        status, reply, headers = self._handle_plain(body)
        if self.echo_auth and auth and status:
            reply = _echo(reply, auth)
        return status, reply, headers

    def _handle_plain(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        messages = body.get("messages") or []
        system = next((m.get("content") for m in messages if m.get("role") == "system"), "")
        task = self._systems.get(system if isinstance(system, str) else "")
        users = [m for m in messages if m.get("role") == "user"]
        text, image = _user_parts(users[0]) if users else ("", b"")
        fmt = (body.get("response_format") or {}).get("type", "none")
        with self._lock:
            info = RequestInfo(
                len(self.requests) + 1,
                task or "?",
                hashlib.sha256(image).hexdigest() if image else "",
                _input_json(text),
                len(users) > 1,
                fmt,
            )
            self.requests.append(info)
        if task is None:
            return 400, _error("fake-vlm: unrecognised system prompt"), {}
        if fmt == "json_schema" and self.reject_json_schema:
            return (
                400,
                _error("response_format of type 'json_schema' is not supported by this server"),
                {},
            )
        for param in self.reject_params:
            if param in body:
                return (
                    400,
                    _error(f"Unsupported parameter: '{param}' is not supported with this model."),
                    {},
                )
        fault = self._take_fault(info)
        if fault is not None and fault.kind in ("401", "429", "500", "503", "disconnect"):
            if fault.kind == "disconnect":
                return 0, {}, {}
            headers = (
                {"retry-after-ms": str(fault.retry_after_ms)}
                if fault.retry_after_ms is not None
                else {}
            )
            return int(fault.kind), _error(f"fake-vlm: injected {fault.kind}"), headers
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.delay_s)
        elif self.latency_s:
            time.sleep(self.latency_s)
        if fault is not None and fault.kind == "refusal":
            return (
                200,
                self._completion(body, None, refusal="I'm sorry, I can't help with that."),
                {},
            )
        if fault is not None and fault.kind == "malformed":
            return 200, self._completion(body, 'Sure! Here is the JSON: {"answers": tru'), {}
        if fault is not None and fault.kind == "nonsense":
            return 200, self._completion(body, json.dumps(_NONSENSE[task])), {}
        if self.yes_man:
            reply = {
                "write": None,
                "judge": {"answers": True, "answer": "42", "reason": "it is all here"},
                "label": {"label": "sufficient", "rationale": "answers it"},
                "qualify": None,
            }[task]
            if reply is not None:
                return 200, self._completion(body, json.dumps(reply)), {}
        try:
            reply = self._answer(task, info, image)
        except LookupError as exc:
            return 400, _error(f"fake-vlm: {exc}"), {}
        return 200, self._completion(body, json.dumps(reply, ensure_ascii=False)), {}

    def _answer(self, task: str, info: RequestInfo, image: bytes) -> dict[str, Any]:
        inputs = info.inputs
        if task == "qualify":
            quals = Qualifiers(dict(inputs.get("qualifiers") or {}), inputs.get("language") or "en")
            return {"question": qualify_question(inputs["question"], quals)}
        text_path = self.pages.lookup(info.image_hash) if image else None
        if text_path is None:
            raise LookupError("no page image, or a page this server does not know")
        view = PageView(
            info.image_hash[:12], text_path.with_suffix(".png"), text_path, info.image_hash
        )
        if task == "write":
            w = self._textlayer.write_questions([view])[0]
            if w is None:
                return {"has_question": False, "question": "", "answer": "", "language": ""}
            return {
                "has_question": True,
                "question": w.question,
                "answer": w.answer,
                "language": w.language,
            }
        if task == "judge":
            j = self._textlayer.judge([(inputs["question"], view)])[0]
            return {
                "answers": j.answers,
                "answer": j.answer if j.answers else None,
                "reason": j.reason,
            }
        lab = self._textlayer.label(
            [(inputs["question"], inputs.get("reference_answer", ""), view)]
        )[0]
        return {"label": lab.label, "rationale": lab.rationale}

    def _completion(
        self, body: dict[str, Any], content: str | None, refusal: str | None = None
    ) -> dict[str, Any]:
        prompt_tokens = sum(_tokens(m) for m in body.get("messages") or [])
        completion_tokens = max(1, math.ceil(len(content or refusal or "") / 4))
        with self._lock:
            n = len(self.requests)
        return {
            "id": f"chatcmpl-fake-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "logprobs": None,
                    "message": {"role": "assistant", "content": content, "refusal": refusal},
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


class _Handler(BaseHTTPRequestHandler):
    fake: FakeVLMServer
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do

    def setup(self) -> None:
        super().setup()
        # As real servers do: without it, Nagle's algorithm and the client's delayed ACK add ~40 ms
        # to every reply.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/") == "/fake/stats":  # for a server running in another process
            with self.fake._lock:
                stats = {
                    "requests": len(self.fake.requests),
                    "max_in_flight": self.fake.max_in_flight,
                    "by_task": dict(Counter(r.task for r in self.fake.requests)),
                }
            self._send(200, stats)
        elif self.path.rstrip("/").endswith("/models"):
            self._send(
                200,
                {
                    "object": "list",
                    "data": [{"id": self.fake.model, "object": "model", "owned_by": "fake"}],
                },
            )
        else:
            self._send(404, _error("not found"))

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        auth = self.headers.get("authorization")
        if auth:
            with self.fake._lock:
                self.fake.authorizations.add(auth)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, _error(f"no route {self.path}"))
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, _error("request body is not JSON"))
            return
        with self.fake._lock:
            self.fake.in_flight += 1
            self.fake.max_in_flight = max(self.fake.max_in_flight, self.fake.in_flight)
        try:
            status, reply, headers = self.fake._handle(body, auth or "")
        finally:
            with self.fake._lock:
                self.fake.in_flight -= 1
        if status == 0:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self._send(status, reply, headers)

    def _send(
        self, status: int, body: dict[str, Any], headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(body).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self._headers_buffer.append(b"\r\n")  # headers and body in one write
            self.wfile.write(b"".join(self._headers_buffer) + data)
            self._headers_buffer = []
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout) first
            self.close_connection = True


def _echo(reply: dict[str, Any], auth: str) -> dict[str, Any]:
    """Plant the caller's Authorization header in every text a model could write (and in errors)."""
    if "error" in reply:
        return {
            "error": {**reply["error"], "message": f"{reply['error']['message']} (you sent {auth})"}
        }
    out = json.loads(json.dumps(reply))
    for choice in out.get("choices", []):
        msg = choice["message"]
        if msg.get("refusal"):
            msg["refusal"] += f" {auth}"
        content = msg.get("content")
        try:
            data = json.loads(content) if content else None
        except ValueError:
            msg["content"] = (
                f"{content} {auth}"  # malformed replies too: they reach the failure ledger
            )
            continue
        if isinstance(data, dict):
            for key in ("reason", "rationale"):  # free text; answers and questions must still work
                if isinstance(data.get(key), str) and data[key]:
                    data[key] = f"{data[key]} [{auth}]"
            msg["content"] = json.dumps(data)
    return out


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "fake_vlm_error", "code": None}}


def _user_parts(message: dict[str, Any]) -> tuple[str, bytes]:
    content = message.get("content")
    if isinstance(content, str):
        return content, b""
    text, image = [], b""
    for part in content or []:
        if part.get("type") == "text":
            text.append(part.get("text", ""))
        elif part.get("type") == "image_url":
            url = (part.get("image_url") or {}).get("url", "")
            if url.startswith("data:") and "," in url:
                image = base64.b64decode(url.split(",", 1)[1])
    return "\n".join(text), image


def _input_json(text: str) -> dict[str, Any]:
    start = text.find("{")
    if start == -1:
        return {}
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _tokens(message: dict[str, Any]) -> int:
    content = message.get("content")
    if isinstance(content, str):
        return math.ceil(len(content) / 4)
    total = 0
    for part in content or []:
        if part.get("type") == "text":
            total += math.ceil(len(part.get("text", "")) / 4)
        elif part.get("type") == "image_url":
            total += _image_tokens((part.get("image_url") or {}).get("url", ""))
    return total


def _image_tokens(url: str) -> int:
    """OpenAI's high-detail estimate: fit in 2048², shorter side to 768, 170 per 512² tile + 85."""
    try:
        import io

        from PIL import Image

        with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as im:
            w, h = im.size
    except Exception:  # noqa: BLE001 - an estimate
        return 85
    scale = min(1.0, 2048 / max(w, h))
    w, h = w * scale, h * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def main(argv: list[str] | None = None) -> int:
    """Serve in its own process (as a real model server is): prints the base URL, then serves until
    stdin closes. `--page PNG` registers a page (text layer beside it); `--data-dir` indexes renders."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="fake_vlm_server")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per reply")
    parser.add_argument(
        "--page", action="append", default=[], help="a page PNG (its .json text layer beside it)"
    )
    parser.add_argument(
        "--data-dir", default=None, help="a data directory whose renders to answer from"
    )
    args = parser.parse_args(argv)
    index = PageIndex(args.data_dir)
    for png in args.page:
        index.add(png)
    with FakeVLMServer(index, latency_s=args.latency) as server:
        print(server.url, flush=True)
        sys.stdin.read()  # until the parent closes our stdin (or exits)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
