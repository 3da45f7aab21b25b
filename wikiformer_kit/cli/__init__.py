"""The command lines' shared conventions: one style of options (`cli.style`) and one-line errors (`cli.errors`)."""

from wikiformer_kit.cli.errors import InputError, one_line_errors
from wikiformer_kit.cli.style import KitArgumentParser, KitHelpFormatter

__all__ = ["InputError", "KitArgumentParser", "KitHelpFormatter", "one_line_errors"]
