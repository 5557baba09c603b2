"""Whether every setting is its default: answered without reading the config.

`learn show` and a listing read one or two settings. With no config file and no
environment override that `learn.config.load_config` checks, every setting is its
default (or an override taken as given), so those paths read it here and import
neither the config's module nor tomllib (~10 ms of imports); otherwise they load
the config, and an invalid one is the same error as everywhere. (When the config
was pydantic's, this saved ~0.07-0.1 s of CPU a command, issue 21; `learn.config`
says why it is msgspec's now.)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

from learn.paths import config_dir

CONFIG_FILENAME: Final = "config.toml"
# learn.config.MiningConfig's default, read here when nothing is configured.
DEFAULT_MIN_SIGNAL_CONFIDENCE: Final = 0.75
# learn.config.MiningConfig's `since`: the sessions `learn run` and `learn plan` read
# when neither --since nor the config says.
DEFAULT_SINCE: Final = "30d"
# learn.config.BackendConfig's default (tests/test_config.py checks they agree).
DEFAULT_BACKEND: Final = "anthropic"
# The environment overrides load_config takes as given (no validation to run).
_GIVEN_OVERRIDES: Final = ("LEARN_OPENAI_BASE_URL", "LEARN_MODEL", "LEARN_MODEL_MINE",
                           "LEARN_MODEL_NAME", "LEARN_MODEL_COVERAGE", "LEARN_MODEL_JUDGE",
                           "LEARN_DATABASE_URL")
# The environment overrides load_config checks (the others it takes as given).
_CHECKED_OVERRIDES: Final = ("LEARN_BACKEND", "LEARN_CONCURRENCY", "LEARN_IN_FLIGHT",
                             "LEARN_REQUESTS_PER_MINUTE")


def defaults_apply(env: Mapping[str, str] | None = None) -> bool:
    """No config file and no override load_config would check."""
    env = os.environ if env is None else env
    return not any(k in env for k in _CHECKED_OVERRIDES) and not (config_dir() / CONFIG_FILENAME).exists()


def defaults_key(env: Mapping[str, str] | None = None) -> str:
    """When `defaults_apply`: what the configuration is, as text (the defaults and the
    overrides taken as given), for a key that must change when it does."""
    env = os.environ if env is None else env
    return "defaults " + " ".join(f"{k}={env[k]!r}" for k in _GIVEN_OVERRIDES if k in env)
