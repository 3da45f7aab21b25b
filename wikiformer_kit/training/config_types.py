"""The values of a training config file checked against the types of the argument dataclasses' fields.

A config's values become the parser's defaults, which argparse converts only when they are strings: a YAML list
where a number belongs (``group_size: [4]``) would reach the code as a list and fail far from the file. Each value
is checked here instead, and a wrong one is named with its file, key and expected type. What argparse would accept
from a string is accepted (``"1e-5"`` for a float, ``"true"`` for a bool), a whole number written as a float for an
integer, and a single value where a list belongs (a list of that one value).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from pathlib import Path
from typing import Any

from wikiformer_kit.cli import InputError

TRUE_WORDS = ("true", "yes", "y", "1")
FALSE_WORDS = ("false", "no", "n", "0")
"""The strings transformers' ``string_to_bool`` reads as a bool."""


class WrongType(Exception):
    """A value that does not fit a type; the message says what was expected."""


def check_config_types(values: dict[str, Any], dataclass_types: tuple[type, ...], path: Path) -> dict[str, Any]:
    """``values`` with each one checked against the type of the dataclass field of its key (keys of no field are
    left to the caller), a single value for a list field made a list and whole floats for integers made ints.

    Raises:
        cli.InputError: ``PATH: KEY: expected TYPE, got VALUE``, for the first value of a wrong type.
    """
    hints = field_types(dataclass_types)
    checked = dict(values)
    for key, value in values.items():
        if key not in hints:
            continue
        try:
            checked[key] = conform(value, hints[key])
        except WrongType as error:
            shown = "null" if value is None else repr(value) if len(repr(value)) <= 60 else repr(value)[:59] + "…"
            kind = "" if value is None else f" ({_kind(value)})"
            raise InputError(f"{path}: {key}: expected {error}, got {shown}{kind}; fix the value in the file") from None
    return checked


def field_types(dataclass_types: tuple[type, ...]) -> dict[str, Any]:
    """The resolved type of every init field of the dataclasses, by name."""
    hints: dict[str, Any] = {}
    for dataclass_type in dataclass_types:
        resolved = typing.get_type_hints(dataclass_type)
        for field in dataclasses.fields(dataclass_type):
            if field.init:
                hints.setdefault(field.name, resolved[field.name])
    return hints


def conform(value: Any, annotation: Any) -> Any:
    """``value`` as ``annotation`` takes it (see the module docstring); :class:`WrongType` naming what fits."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(annotation)
        if value is None and type(None) in options:
            return None
        failures = []
        for option in (o for o in _scalars_first(options) if o is not type(None)):
            try:
                return conform(value, option)
            except WrongType as error:
                failures.append(str(error))
        raise WrongType(" or ".join(dict.fromkeys(failures)) + (" (or null)" if type(None) in options else ""))
    if origin is typing.Literal:
        choices = typing.get_args(annotation)
        if value in choices:
            return value
        raise WrongType("one of " + ", ".join(repr(c) for c in choices))
    if origin is list:
        (item,) = typing.get_args(annotation) or (Any,)
        items = value if isinstance(value, (list, tuple)) else [value]
        if isinstance(value, dict):
            raise WrongType(f"a list of {_plural(item)}")
        try:
            # argparse converts a string default, never the strings in a list: converted here
            return [
                item(v) if item in (int, float) and isinstance(v, str) else v
                for v in map(conform, items, [item] * len(items))
            ]
        except WrongType:
            raise WrongType(f"a list of {_plural(item)}") from None
    if origin is dict or annotation is dict:
        if isinstance(value, dict):
            return value
        raise WrongType("a mapping (key: value)")
    return _scalar(value, annotation)


def _scalar(value: Any, annotation: Any) -> Any:
    if annotation is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, (str, int)) and str(value).lower() in TRUE_WORDS + FALSE_WORDS:
            return value  # argparse reads it with string_to_bool
        raise WrongType("true or false")
    if annotation is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and _parses(int, value):
            return value
        raise WrongType("an integer")
    if annotation is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and _parses(float, value):
            return value
        raise WrongType("a number")
    if annotation is str or (isinstance(annotation, type) and issubclass(annotation, enum.Enum)):
        if isinstance(value, (str, int, float, bool)):
            return value  # a bool stays one (resume_from_checkpoint: true); a number is a name like any other
        raise WrongType("a string")
    return value  # a type the config cannot spell (a class of accelerate's): left to the library


def _scalars_first(options: tuple) -> list:
    """A union's members in the order a value is tried: numbers and bools, then strings, mappings and lists last
    (so that ``"8"`` for ``int | str`` stays a number, and a string for ``str | list[str]`` is not made a list)."""

    def rank(option: Any) -> int:
        origin = typing.get_origin(option)
        if origin is list:
            return 3
        if origin is dict or option is dict:
            return 2
        return 1 if option is str else 0

    return sorted(options, key=rank)


def _parses(kind: type, text: str) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


def _plural(annotation: Any) -> str:
    names = {int: "integers", float: "numbers", bool: "true/false values", str: "strings"}
    return names.get(annotation, "values")


def _kind(value: Any) -> str:
    names = {bool: "a bool", int: "an integer", float: "a number", str: "a string", list: "a list", dict: "a mapping"}
    return names.get(type(value), f"a {type(value).__name__}")
