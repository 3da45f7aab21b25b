"""The Wikiformer model under the name every published checkpoint carries it by. The file itself, self-contained
(torch and transformers only) and copied into each model repository, is ``wikiformer_kit/modeling_wikiformer.py``."""

from wikiformer_kit.modeling_wikiformer import *  # noqa: F403
