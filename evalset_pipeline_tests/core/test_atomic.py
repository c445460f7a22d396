"""The one atomic-write helper: whole file or the old one, temp files where the caller sweeps."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from evalset_pipeline.core import atomic
from evalset_pipeline.core.atomic import write_bytes_atomic, write_text_atomic


def test_replaces_the_file_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "a.json"
    write_text_atomic(target, "old")
    write_bytes_atomic(target, b"new", fsync=True)
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in target.parent.iterdir()) == ["a.json"]


def test_a_failed_rename_keeps_the_old_file_and_removes_the_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.bin"
    target.write_bytes(b"old")

    def no_space(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", no_space)
    with pytest.raises(OSError, match="No space"):
        write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]


def test_temp_file_goes_where_and_by_the_name_the_caller_sweeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, target = tmp_path / ".tmp", tmp_path / "out" / "page.png"
    work.mkdir()
    seen: list[Path] = []
    real = os.replace

    def spy(src: str, dst: str) -> None:
        seen.append(Path(src))
        real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", spy)
    write_bytes_atomic(target, b"png", tmp_dir=work, tmp_prefix=".tmp-page-")
    assert seen[0].parent == work and seen[0].name.startswith(".tmp-page-")
    assert target.read_bytes() == b"png" and not list(work.iterdir())


def test_the_umask_sets_the_mode_as_for_any_new_file(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_bytes_atomic(tmp_path / "f", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f").stat().st_mode) == 0o644
