"""The subcommands of ``python -m eval``, one module each: its options (a dataclass, declared once) and ``run``."""
