"""What a model may reply for each task, validated with pydantic, then checked for sense.

Two gates. The schema gate: the reply is one JSON object with the fields and types of the task's
schema (the same schema the prompt file sends as structured output). The sense gate: valid JSON
can still be nonsense for the task, and nonsense must never become a question, a judgment or a
label: an empty question, a judge that says "answers" without an answer, a label outside the three
classes, an empty rewrite. Either gate failing raises `InvalidReply` with a short reason, which is
what the repair request tells the model.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from evalset_pipeline.core.judging.base import Judgment, LabelResult, WrittenQuestion
from evalset_pipeline.core.labels import Label

__all__ = [
    "InvalidReply",
    "WriteReply",
    "JudgeReply",
    "LabelReply",
    "QualifyReply",
    "REPLY_MODELS",
    "extract_json",
    "parse_reply",
]

MAX_QUESTION_CHARS = 1000
MAX_ANSWER_CHARS = 300
_LANGUAGE = re.compile(r"^([a-z]{2})(?:[-_][a-z0-9]+)*$")
_FENCE = re.compile(r"^```[A-Za-z]*\s*\n?(.*?)\n?```$", re.S)


class InvalidReply(ValueError):
    """The reply cannot be used for its task; the message says why (and is shown to the model)."""


class _Reply(BaseModel):
    # Strict: "true" is not a boolean and 1 is not a string. Extra keys are ignored (JSON mode
    # models sometimes add one); structured outputs never send them.
    model_config = ConfigDict(strict=True, extra="ignore")


class WriteReply(_Reply):
    has_question: bool
    question: str = ""
    answer: str = ""
    language: str = ""


class JudgeReply(_Reply):
    answers: bool
    answer: str | None = None
    reason: str = ""


class LabelReply(_Reply):
    label: Label
    rationale: str = ""

    @field_validator("label", mode="before")
    @classmethod
    def _casefold(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


class QualifyReply(_Reply):
    question: str


REPLY_MODELS: dict[str, type[_Reply]] = {
    "write": WriteReply,
    "judge": JudgeReply,
    "label": LabelReply,
    "qualify": QualifyReply,
}


def extract_json(text: str) -> str:
    """The JSON object in a reply: tolerates a Markdown fence or a sentence around it."""
    t = (text or "").strip()
    m = _FENCE.match(t)
    if m:
        t = m.group(1).strip()
    if not t.startswith("{"):
        start, end = t.find("{"), t.rfind("}")
        if start != -1 and end > start:
            t = t[start : end + 1]
    return t


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def _validate(task: str, text: str) -> _Reply:
    model = REPLY_MODELS[task]
    body = extract_json(text)
    if not body:
        raise InvalidReply("the reply was empty")
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        problems = []
        for err in exc.errors()[:3]:
            where = ".".join(str(p) for p in err["loc"])
            problems.append(f"{where}: {err['msg']}" if where else err["msg"])
        if any(e["type"] == "json_invalid" for e in exc.errors()):
            try:  # pydantic's JSON errors are terse; the stdlib's say where
                json.loads(body)
            except ValueError as jexc:
                problems = [f"not valid JSON ({jexc})"]
        raise InvalidReply("; ".join(problems)) from None


def parse_reply(task: str, text: str) -> WrittenQuestion | Judgment | LabelResult | str | None:
    """The task's result (without usage) from a reply's text; `InvalidReply` if it is unusable.

    write -> WrittenQuestion, or None when the model says the page offers nothing to ask
    judge -> Judgment; label -> LabelResult; qualify -> the rewritten question (str)
    """
    if task not in REPLY_MODELS:
        raise ValueError(f"unknown task {task!r}")
    reply = _validate(task, text)
    if isinstance(reply, WriteReply):
        if not reply.has_question:
            return None
        question, answer = _one_line(reply.question), _one_line(reply.answer)
        if not question:
            raise InvalidReply("has_question is true but the question is empty")
        if not answer:
            raise InvalidReply("has_question is true but the answer is empty")
        if len(question) > MAX_QUESTION_CHARS or len(answer) > MAX_ANSWER_CHARS:
            raise InvalidReply(
                f"the question must be under {MAX_QUESTION_CHARS} characters and the answer "
                f"under {MAX_ANSWER_CHARS}"
            )
        lang = _LANGUAGE.match(reply.language.strip().lower())
        if not lang:
            raise InvalidReply(
                f"language must be an ISO 639-1 code like 'en' or 'ko', got {reply.language!r}"
            )
        return WrittenQuestion(question, answer, lang.group(1))
    if isinstance(reply, JudgeReply):
        answer = _one_line(reply.answer or "")
        if reply.answers and not answer:
            raise InvalidReply("answers is true but the answer is missing")
        if len(answer) > MAX_ANSWER_CHARS:
            raise InvalidReply(f"the answer must be under {MAX_ANSWER_CHARS} characters")
        return Judgment(reply.answers, answer if reply.answers else None, _one_line(reply.reason))
    if isinstance(reply, LabelReply):
        return LabelResult(reply.label, _one_line(reply.rationale))
    assert isinstance(reply, QualifyReply), type(reply)  # REPLY_MODELS has one model per task
    question = _one_line(reply.question)
    if not question:
        raise InvalidReply("the rewritten question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidReply(f"the question must be under {MAX_QUESTION_CHARS} characters")
    return question
