"""Each setting declared once: a dataclass field carries its default and its help text.

Whatever shows or takes a setting is generated from that declaration (the Dagster resources in
`defs/config_fields.py`, the `evalset` flags in `cli/flags.py`, the run config `evalset build`
passes), so a default or a description cannot drift between them.

A field that holds another settings dataclass (`nested`) is flattened: its settings appear at
the top level, renamed where the launchpad has always spelled them differently (`render_dpi`).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any, TypeVar

T = TypeVar("T")
_HELP, _CHOICES, _NESTED = "help", "choices", "nested"


def setting(
    default: Any = MISSING,
    *,
    help: str,
    factory: Callable[[], Any] | None = None,
    choices: Sequence[str] = (),
) -> Any:
    """A dataclass field with its help text (and the values it may take, when they are few)."""
    meta = {_HELP: help, _CHOICES: tuple(choices)}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def nested(cls: type, rename: Mapping[str, str] | None = None) -> Any:
    """A field holding settings dataclass `cls`, whose settings are set one by one at the top
    level; its defaults are `cls`'s own, so they are declared in one place."""
    return field(default_factory=cls, metadata={_NESTED: dict(rename or {})})


@dataclass(frozen=True)
class Setting:
    name: str  # as the launchpad and run config spell it
    path: tuple[str, ...]  # where it sits in the dataclass: ("render", "dpi")
    type: Any  # the resolved annotation
    default: Any  # MISSING when `factory` gives it
    factory: Callable[[], Any] | None
    help: str
    choices: tuple[str, ...]

    @property
    def is_sequence(self) -> bool:
        return typing.get_origin(self.type) is tuple

    def default_value(self) -> Any:
        return self.factory() if self.factory is not None else self.default


def settings_of(cls: type) -> tuple[Setting, ...]:
    """Every setting of dataclass `cls`, nested ones flattened, in declaration order."""
    hints = typing.get_type_hints(cls)
    out: list[Setting] = []
    for f in fields(cls):
        if _NESTED in f.metadata:
            rename = f.metadata[_NESTED]
            out += [
                replace(s, name=rename.get(s.name, s.name), path=(f.name, *s.path))
                for s in settings_of(hints[f.name])
            ]
        elif _HELP in f.metadata:
            factory = None if f.default_factory is MISSING else f.default_factory
            out.append(
                Setting(
                    f.name,
                    (f.name,),
                    hints[f.name],
                    f.default,
                    factory,
                    f.metadata[_HELP],
                    f.metadata[_CHOICES],
                )
            )
        else:
            raise TypeError(f"{cls.__name__}.{f.name}: declare it with setting() or nested()")
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        raise TypeError(f"{cls.__name__}: two settings are named alike: {names}")
    return tuple(out)


def from_flat(cls: type[T], values: Mapping[str, Any]) -> T:
    """An instance of `cls` from values by setting name; settings not given keep their default."""
    known = {s.name: s for s in settings_of(cls)}
    if unknown := sorted(set(values) - set(known)):
        raise TypeError(f"{cls.__name__} has no setting {', '.join(unknown)}")
    tree: dict[str, Any] = {}
    for name, value in values.items():
        s = known[name]
        node = tree
        for part in s.path[:-1]:
            node = node.setdefault(part, {})
        node[s.path[-1]] = tuple(value) if s.is_sequence else value
    return _build(cls, tree)


def _build(cls: type[T], tree: Mapping[str, Any]) -> T:
    hints = typing.get_type_hints(cls)
    kwargs = {
        f.name: _build(hints[f.name], tree[f.name]) if _NESTED in f.metadata else tree[f.name]
        for f in fields(cls)  # type: ignore[arg-type]  # cls is a dataclass
        if f.name in tree
    }
    return cls(**kwargs)


def to_flat(obj: Any) -> dict[str, Any]:
    """The values of dataclass instance `obj` by setting name, sequences as lists (as JSON and
    Dagster config hold them)."""
    out: dict[str, Any] = {}
    for s in settings_of(type(obj)):
        value = obj
        for part in s.path:
            value = getattr(value, part)
        out[s.name] = list(value) if s.is_sequence else value
    return out
