"""`evalset` flags generated from a core settings dataclass (core/settings.py): one flag per
setting, with the help text and default declared there; sequences are comma-separated."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from evalset_pipeline.core.settings import Setting, settings_of


def _flag(s: Setting, flags: Mapping[str, str]) -> str:
    return flags.get(s.name, "--" + s.name.replace("_", "-"))


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def comma_list(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split(",") if v.strip())


def _help(s: Setting) -> str:
    notes = ["comma-separated"] if s.is_sequence else []
    if s.factory is None and s.type is not bool:  # a computed default or a switch says itself
        shown = ",".join(s.default) if s.is_sequence else s.default
        if shown not in (None, ""):
            notes.append(f"default: {shown}")
    text = s.help + (f" ({'; '.join(notes)})" if notes else "")
    return text.replace("%", "%%")  # argparse %-formats help


def add_setting_flags(
    p: argparse.ArgumentParser, cls: type, flags: Mapping[str, str] | None = None
) -> None:
    """One flag per setting of `cls`, named `--setting-name` unless `flags` names it otherwise."""
    for s in settings_of(cls):
        kwargs: dict[str, Any] = {"help": _help(s), "default": None if s.factory else s.default}
        if s.is_sequence:
            kwargs.update(type=comma_list, metavar="A,B,...")
        elif s.type is bool:  # a switch, off unless given (a bool setting defaults to False)
            kwargs.update(action="store_true", default=False)
        elif s.choices:
            kwargs["choices"] = list(s.choices)
        elif s.type in (int, float):
            kwargs.update(type=s.type, metavar="N")
        p.add_argument(_flag(s, flags or {}), **kwargs)


def flag_values(
    args: argparse.Namespace, cls: type, flags: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The values of `add_setting_flags`'s flags by setting name; a flag not given whose default
    is computed (a directory from the environment) is left out, so the setting computes it."""
    out: dict[str, Any] = {}
    for s in settings_of(cls):
        value = getattr(args, _dest(_flag(s, flags or {})))
        if value is not None or s.factory is None:
            out[s.name] = value
    return out
