"""A document's subject as a name ("청년일자리창출지원") and the code it is filed under ("1043-301"),
compared up to spaces and punctuation: one source for the reader of covers, the question's
grammar and the judge."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["names_subject", "same_subject", "split_code", "subject_key"]

# A program code ending a name: "(1043-301)", " 1043-301"
_CODE = re.compile(r"\s*[(\[]?\s*(?P<code>\d{2,5}(?:-\d{2,5})+)\s*[)\]]?\s*$")


def split_code(text: str) -> tuple[str, str]:
    """(name, code) of "청년일자리창출지원(1043-301)"; the code "" where none ends it."""
    m = _CODE.search(text)
    return (text[: m.start()].strip(), m["code"]) if m else (text.strip(), "")


def subject_key(text: str) -> str:
    """A name with spaces and punctuation removed: "노인일자리 및 사회활동 지원" and "노인일자리 및
    사회활동지원" are one program."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text)).casefold()


def same_subject(asked: str, printed: str) -> bool:
    """One subject: the names agree up to spaces and punctuation, and the codes where both have one."""
    (name, code), (other, other_code) = split_code(asked), split_code(printed)
    return subject_key(name) == subject_key(other) and (
        not code or not other_code or code == other_code
    )


def names_subject(text: str, subject: str) -> bool:
    """Does `text` (a question's label, a page) name the subject, its code aside?"""
    name = subject_key(split_code(subject)[0])
    return bool(name) and name in subject_key(text)
