"""The command lines' shared conventions: one style of options (`cli.style`) and one-line errors (`cli.errors`)."""

from .errors import InputError, one_line_errors
from .style import KitArgumentParser, KitHelpFormatter

__all__ = ["InputError", "KitArgumentParser", "KitHelpFormatter", "one_line_errors"]
