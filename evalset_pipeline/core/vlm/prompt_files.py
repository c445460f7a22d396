"""The versioned prompt files of the `openai` backend: one Markdown file per task.

    core/vlm/prompts/{write,judge,label,qualify}.md

A file holds a `version:` line and three sections, `## system`, `## user` and `## repair`. The
system section contains one ```json block: the JSON Schema of the reply, sent as the structured-
output schema where the server supports it (and read by the model in plain JSON mode). The user
section may use `{{input}}` (the task's input as JSON) and the repair section `{{error}}`.

A prompt's hash is the sha256 of the whole file (first 16 hex digits), so any edit (instructions,
schema, repair text) changes the cache key of that task and only that task.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from evalset_pipeline.core.hashing import sha256_bytes

__all__ = ["PROMPTS_DIR", "PromptFile", "PromptFileError", "load_prompt"]

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"

_SECTION = re.compile(r"^##\s+(system|user|repair)\s*$", re.M)
_SCHEMA_BLOCK = re.compile(r"```json\s*\n(.*?)\n```", re.S)
_VERSION = re.compile(r"^version:\s*(\S+)\s*$", re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


class PromptFileError(ValueError):
    pass


@dataclass(frozen=True)
class PromptFile:
    task: str
    version: str
    path: Path
    sha256: str  # of the file's bytes
    system: str
    user: str
    repair: str
    schema: dict[str, Any]

    @property
    def hash(self) -> str:
        """What goes into every cache key and result: the file's content hash."""
        return self.sha256[:16]

    def user_text(self, inputs: dict[str, Any] | None = None) -> str:
        text = self.user
        if "{{input}}" in text:
            text = text.replace("{{input}}", json.dumps(inputs or {}, ensure_ascii=False, indent=1))
        return text

    def repair_text(self, error: str) -> str:
        return self.repair.replace("{{error}}", error)


def load_prompt(task: str, directory: str | Path | None = None) -> PromptFile:
    path = Path(directory) if directory is not None else PROMPTS_DIR
    return _load(str((path / f"{task}.md").resolve()), task)


@lru_cache(maxsize=64)
def _load_cached(path: str, task: str, stamp: tuple[int, int]) -> PromptFile:
    raw = Path(path).read_bytes()
    text = raw.decode("utf-8")
    body = _COMMENT.sub("", text)
    version = _VERSION.search(body)
    if version is None:
        raise PromptFileError(f"{path}: no 'version:' line")
    parts = _SECTION.split(body)
    sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    missing = {"system", "user", "repair"} - set(sections)
    if missing:
        raise PromptFileError(f"{path}: missing section(s) {', '.join(sorted(missing))}")
    blocks = _SCHEMA_BLOCK.findall(sections["system"])
    if len(blocks) != 1:
        raise PromptFileError(f"{path}: the system section needs exactly one ```json schema block")
    try:
        schema = json.loads(blocks[0])
    except ValueError as exc:
        raise PromptFileError(f"{path}: the schema block is not JSON ({exc})") from exc
    if schema.get("type") != "object":
        raise PromptFileError(f"{path}: the reply schema must describe a JSON object")
    return PromptFile(
        task,
        version.group(1),
        Path(path),
        sha256_bytes(raw),
        sections["system"],
        sections["user"],
        sections["repair"],
        schema,
    )  # key order kept: models fill fields in schema order


def _load(path: str, task: str) -> PromptFile:
    try:
        st = Path(path).stat()
    except OSError as exc:
        raise PromptFileError(f"no prompt file for task {task!r} at {path}") from exc
    # Keyed by mtime and size too, so an edited file is re-read (and re-hashed) in a long-lived process.
    return _load_cached(path, task, (st.st_mtime_ns, st.st_size))
