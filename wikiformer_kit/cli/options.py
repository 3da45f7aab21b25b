"""Options declared once, as dataclass fields: the command line is built from them, parsed into them, and written
back from them when one command runs another.

    @dataclass
    class RerankOptions:
        model: str = option(help="checkpoint folder or Hub id", required=True)
        k: int = option(100, help="candidates per query")
        fusion: Literal["none", "zscore", "minmax", "rrf"] | None = option(None, help="fuse with the first stage")

    parser = KitArgumentParser(prog="python -m eval")
    add_options(parser, RerankOptions)
    options = options_from(RerankOptions, parser.parse_args(argv))
    command = ["python", "-m", "eval", "rerank", *to_argv(options)]

Each field is one option: ``--kebab-case`` of its name (or the ``flags`` given), its type and choices from its
annotation (``int``, ``float``, ``str``, ``Path``, ``bool``, ``list[...]``, ``Literal[...]``, ``X | None``), its
default from the field's, and any other ``argparse`` setting (``nargs``, ``metavar``, ``action``, ``required``) as
given. Choices are checked by argparse alone, once, for every command. A renamed or removed field is a
``TypeError`` wherever another command still builds the old one, so a stage that runs a command cannot drift from
that command's options.
"""

from __future__ import annotations

import argparse
import dataclasses
import types
import typing
from pathlib import Path
from typing import Any, Literal

POSITIONAL = "positional"
_ARGPARSE_KEYS = ("nargs", "metavar", "action", "required", "choices", "type")


def option(default: Any = dataclasses.MISSING, *, help: str, flags: tuple[str, ...] = (), **settings) -> Any:
    """A dataclass field that is one command-line option.

    Args:
        default: the value when the option is not given (a list is copied for each instance); none given and
            ``required=True``: the option must be given.
        help: the ``--help`` text.
        flags: the option strings (default ``--kebab-name``); ``flags=(POSITIONAL,)`` makes it a positional argument.
        settings: other ``argparse.add_argument`` settings: ``nargs``, ``metavar``, ``action``, ``required``,
            ``choices``, ``type``.
    """
    metadata = {"help": help, "flags": tuple(flags), **settings}
    if isinstance(default, (list, dict, set)):
        copy = type(default)(default)
        return dataclasses.field(default_factory=lambda: type(copy)(copy), metadata=metadata)
    if default is dataclasses.MISSING and not settings.get("required") and POSITIONAL not in flags:
        default = None
    return dataclasses.field(default=default, metadata=metadata)


def option_strings(field: dataclasses.Field) -> tuple[str, ...]:
    """The option strings of ``field``: its ``flags``, else ``--kebab-case`` of its name."""
    return field.metadata.get("flags") or ("--" + field.name.replace("_", "-"),)


def _field_default(field: dataclasses.Field) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return None if field.default is dataclasses.MISSING else field.default


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """The annotation without ``| None``, and whether it is a list."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = members[0] if len(members) == 1 else str
    if typing.get_origin(annotation) in (list, tuple):
        return (typing.get_args(annotation) or (str,))[0], True
    return annotation, False


def argparse_settings(field: dataclasses.Field, annotation: Any) -> dict:
    """``add_argument``'s keyword arguments for ``field``."""
    settings = {key: value for key, value in field.metadata.items() if key in _ARGPARSE_KEYS}
    settings["help"] = field.metadata["help"]
    item, is_list = _unwrap(annotation)
    if typing.get_origin(item) is Literal:
        settings.setdefault("choices", typing.get_args(item))
        item = type(typing.get_args(item)[0])
    if item is bool and not is_list:
        settings.setdefault("action", "store_true")
    elif "action" not in settings or settings["action"] in ("extend", "append"):
        if item in (int, float, Path):
            settings.setdefault("type", item)
        if is_list and settings.get("action") != "append":  # append: one value a flag, the flag repeated
            settings.setdefault("nargs", "+")
    if POSITIONAL not in option_strings(field):
        settings["dest"] = field.name
        if not settings.get("required"):
            settings["default"] = _field_default(field)
    elif dataclasses.MISSING not in (field.default,) or field.default_factory is not dataclasses.MISSING:
        settings["default"] = _field_default(field)
    return settings


def add_options(parser: argparse.ArgumentParser, options_class: type, *, skip: tuple[str, ...] = ()) -> None:
    """Add one option to ``parser`` for each field of ``options_class`` (but those named in ``skip``, e.g. the
    inputs a ``KitArgumentParser`` adds itself)."""
    hints = typing.get_type_hints(options_class)
    for field in dataclasses.fields(options_class):
        if field.name in skip or "help" not in field.metadata:
            continue
        flags = option_strings(field)
        settings = argparse_settings(field, hints[field.name])
        if flags == (POSITIONAL,):
            parser.add_argument(field.name, **settings)
        else:
            parser.add_argument(*flags, **settings)


def add_option_groups(parser: argparse.ArgumentParser, options_class: type, *, skip: tuple[str, ...] = ("input",)):
    """Add the options of ``options_class``: its own fields first, then those of each dataclass it inherits, in the
    order of its bases, under the heading a base names in its ``OPTION_GROUP`` (none: among the options before)."""
    bases = [base for base in options_class.__bases__ if dataclasses.is_dataclass(base)]
    inherited = tuple(field.name for base in bases for field in dataclasses.fields(base))
    add_options(parser, options_class, skip=skip + inherited)
    for base in bases:
        title = vars(base).get("OPTION_GROUP")
        add_option_groups(parser.add_argument_group(title) if title else parser, base, skip=skip)


def options_from(options_class: type, namespace: argparse.Namespace, **given):
    """An ``options_class`` from a parsed command line (fields it lacks keep their defaults; ``given`` wins)."""
    values = {
        field.name: getattr(namespace, field.name)
        for field in dataclasses.fields(options_class)
        if field.init and hasattr(namespace, field.name)
    }
    return options_class(**{**values, **given})


def changed_from_default(options: Any) -> dict[str, Any]:
    """The fields of ``options`` that have a default and are set to something else: what a command line gave."""
    return {
        field.name: getattr(options, field.name)
        for field in dataclasses.fields(options)
        if (field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING)
        and getattr(options, field.name) != _field_default(field)
    }


def to_argv(
    options: Any, *, input_flag: str | None = "--input", first: tuple[str, ...] = (), always: tuple[str, ...] = ()
) -> list[str]:
    """The command line that parses into ``options``: each field that differs from its default, as its option
    (positional fields first, in order, then the inputs, then the fields named in ``first``, in that order), and the
    fields named in ``always`` even at their default (what a command line shown to a reader should say). A field
    named ``input`` is written as ``input_flag VALUE ...``."""
    positional: list[str] = []
    argv: list[str] = []
    order = {name: rank for rank, name in enumerate(("input", *first))}
    fields = sorted(dataclasses.fields(options), key=lambda field: order.get(field.name, len(order)))  # stable
    for field in fields:
        if "help" not in field.metadata and field.name != "input":
            continue
        value = getattr(options, field.name)
        flags = option_strings(field) if "help" in field.metadata else (input_flag,)
        if field.name == "input" and input_flag:
            flags = (input_flag,)
        if flags == (POSITIONAL,):
            if value is not None:
                positional += [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]
            continue
        if value == _field_default(field) and not field.metadata.get("required") and field.name not in always:
            continue
        action = field.metadata.get("action")
        if value is True and action in (None, "store_true"):
            argv.append(flags[0])
        elif value is False and action == "store_false":
            argv.append(flags[0])
        elif isinstance(value, bool) and action == argparse.BooleanOptionalAction:
            argv.append(flags[0] if value else "--no-" + flags[0][2:])
        elif value is None:
            continue
        elif isinstance(value, (list, tuple)) and action == "append":
            argv += [token for item in value for token in (flags[0], str(item))]
        elif isinstance(value, (list, tuple)):
            argv += [flags[0], *map(str, value)]
        else:
            argv += [flags[0], str(value)]
    return positional + argv
