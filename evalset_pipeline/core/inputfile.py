"""Opening a user's input file safely: its kind checked before open, its text decoded by BOM,
JSON lines parsed with a size and depth limit. Every failure is one line naming the file.

Why: an input path is whatever a user typed. A FIFO blocks `open()` forever, a directory or a
symlink loop raises an OSError whose message does not say what to do, and `json.loads` on a
line nested 100,000 deep raises RecursionError. Readers (imports, `evalset score`) call these
helpers instead of `open()` / `json.loads`, so each of those is one clear error or one per-row
issue, never a traceback or a hang.

Encoding policy (one for every reader): a UTF-8 BOM, a UTF-16 BOM (LE or BE) or no BOM and valid
UTF-8. Anything else (Latin-1, cp1252, binary) is reported with the file, the line and the byte.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

# A JSON line longer than this is one per-row issue; the reader skips it without holding it.
MAX_LINE_BYTES = 16 * 1024 * 1024
# Nesting deeper than this is not a benchmark row; refusing it keeps json.loads off its recursion limit.
MAX_JSON_DEPTH = 64
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_READ_CHUNK = 1 << 20


class InputFileError(ValueError):
    """The input as a whole cannot be read; the message is one line and names the path."""


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _stat(path: Path, what: str) -> os.stat_result:
    """stat() following links, with a message that says which of the usual things is wrong."""
    try:
        return os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputFileError(
                f"{what} {path} is a symlink loop (it points back to itself): give the real path"
            ) from None
        if exc.errno == errno.ENOENT:
            if os.path.islink(path):
                raise InputFileError(
                    f"{what} {path} is a broken symlink (it points to {os.readlink(path)}, "
                    "which does not exist)"
                ) from None
            raise InputFileError(f"{what} {path} does not exist") from None
        if exc.errno == errno.ENOTDIR:
            raise InputFileError(
                f"{what} {path} does not exist (a part of its path is a file)"
            ) from None
        raise InputFileError(f"{what} {path} cannot be read ({exc.strerror})") from None


def check_file(path: str | Path, what: str = "input file") -> Path:
    """`path` if it is a regular file (after links); else InputFileError naming what it is.
    A FIFO or a device is refused before it is opened: opening one can block forever."""
    path = Path(path)
    mode = _stat(path, what).st_mode
    if not stat.S_ISREG(mode):
        hint = (
            ": give the file inside it" if stat.S_ISDIR(mode) else ", not a regular file: refused"
        )
        raise InputFileError(f"{what} {path} is {_kind(mode)}{hint}")
    if not os.access(path, os.R_OK):
        raise InputFileError(f"{what} {path} is not readable (permission denied)")
    return path


def check_dir(path: str | Path, what: str = "input folder") -> Path:
    """`path` if it is a directory (after links); else InputFileError naming what it is."""
    path = Path(path)
    mode = _stat(path, what).st_mode
    if not stat.S_ISDIR(mode):
        raise InputFileError(f"{what} {path} is {_kind(mode)}, not a folder")
    return path


def open_checked(path: str | Path, what: str = "input file") -> BinaryIO:
    """Open a regular file for binary reading, refusing FIFOs, devices and loops first.
    O_NONBLOCK makes the open itself return at once even if the file was swapped for a FIFO
    between the check and the open; it has no effect on reading a regular file."""
    path = check_file(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InputFileError(f"{what} {path} cannot be opened ({exc.strerror})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputFileError(f"{what} {path} changed into something else while it was opened")
    return os.fdopen(fd, "rb")


def _not_decodable(exc: UnicodeDecodeError, encoding: str) -> str:
    byte = exc.object[exc.start : exc.start + 1].hex() if exc.object else "?"
    return (
        f"not {encoding} (byte 0x{byte} at offset {exc.start}); save the file as UTF-8 "
        "(or UTF-16 with a byte-order mark)"
    )


@dataclass(frozen=True)
class Line:
    """One line of a text file: its 1-based number, its text, or why it could not be read."""

    number: int
    text: str = ""
    error: str = ""  # non-empty: this line is one issue (not decodable, too long)


def _long_line(f: BinaryIO, start: bytes) -> None:
    """Skip the rest of an over-long line without holding it."""
    chunk = start
    while chunk and not chunk.endswith(b"\n"):
        chunk = f.readline(_READ_CHUNK)


def iter_lines(path: str | Path, what: str = "input file") -> Iterator[Line]:
    """The file's lines, decoded by its BOM. UTF-8 is decoded line by line, so one bad line (a
    Latin-1 é) is one issue and the others are read; UTF-16 is decoded as a stream, where a bad
    sequence is one error for the file (InputFileError naming the line)."""
    path = Path(path)
    with open_checked(path, what) as f:
        head = f.read(4)
        f.seek(0)
        if head.startswith(_UTF16_BOMS):
            yield from _iter_utf16(f, path)
            return
        if head.startswith(codecs.BOM_UTF8):
            f.seek(len(codecs.BOM_UTF8))
        number = 0
        while True:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                _long_line(f, raw)
                yield Line(number, error=f"longer than {MAX_LINE_BYTES:,} bytes")
                continue
            try:
                yield Line(number, raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                yield Line(number, error=_not_decodable(exc, "UTF-8"))


def _iter_utf16(f: BinaryIO, path: Path) -> Iterator[Line]:
    decoder = codecs.getincrementaldecoder("utf-16")("strict")
    pending, number = "", 0
    while True:
        chunk = f.read(_READ_CHUNK)
        try:
            pending += decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            where = f"{path}:{number + pending.count(chr(10)) + 1}"
            raise InputFileError(f"{where}: {_not_decodable(exc, 'UTF-16')}") from None
        *done, pending = pending.split("\n")
        for text in done:
            number += 1
            yield Line(number, text + "\n")
        if not chunk:
            if pending:
                yield Line(number + 1, pending)
            return


def read_text(path: str | Path, what: str = "input file") -> str:
    """A whole (small) text file decoded by its BOM; a line that is not decodable is an error."""
    out = []
    for line in iter_lines(path, what):
        if line.error:
            raise InputFileError(f"{path}:{line.number}: {line.error}")
        out.append(line.text)
    return "".join(out)


def _depth_ok(text: str, limit: int) -> bool:
    """Brackets outside strings never nest past `limit` (a linear scan; no recursion)."""
    if text.count("[") + text.count("{") <= limit:
        return True
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def parse_json_line(text: str) -> tuple[Any, str]:
    """(value, "") or (None, why it is not usable JSON). Never raises: too deep, an integer past
    Python's digit limit and plain syntax errors are each one reason."""
    if not _depth_ok(text, MAX_JSON_DEPTH):
        return None, f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
    try:
        return json.loads(text), ""
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg})"
    except RecursionError:
        return None, f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        return None, f"not usable JSON ({str(exc).split(';')[0]})"
