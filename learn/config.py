"""Configuration: `~/.config/learn/config.toml`, then environment, then flags.

Every setting has a default that works without a config file. The file is
optional and partial; an invalid file is a usage error (exit 2) with the path
and the offending key, never a silent fallback, because a typo in a threshold
would otherwise quietly change what gets proposed.

Environment overrides (handy in CI and in the Claude Code command):
LEARN_BACKEND, LEARN_MODEL (all steps), LEARN_MODEL_MINE / _NAME / _COVERAGE /
_JUDGE, LEARN_CONCURRENCY, LEARN_OPENAI_BASE_URL, LEARN_DATABASE_URL.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from learn.config_defaults import CONFIG_FILENAME, DEFAULT_MIN_SIGNAL_CONFIDENCE
from learn.models.catalog import DEFAULT_MODELS
from learn.paths import config_dir

BackendName = Literal["anthropic", "claude-cli", "openai", "replay"]


class ConfigError(Exception):
    """The config file or an override is invalid. The message names the place."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelsConfig(_Section):
    mine: str = DEFAULT_MODELS["mine"]
    name: str = DEFAULT_MODELS["name"]
    coverage: str = DEFAULT_MODELS["coverage"]
    judge: str = DEFAULT_MODELS["judge"]
    # Override for local models whose window learn does not know; chunking
    # never sends more than this can take.
    context_window: int | None = None
    # Items per naming call; default: as many as the naming model's output
    # budget allows. Smaller batches mean more calls and more label drift to
    # reconcile (the noisy eval sets it to exercise exactly that).
    name_batch: int | None = Field(None, ge=1)

    def for_step(self, step: str) -> str:
        value = getattr(self, step)
        assert isinstance(value, str)
        return value


class BackendConfig(_Section):
    name: BackendName = "anthropic"
    base_url: str | None = None  # anthropic: ANTHROPIC_BASE_URL wins when set
    openai_base_url: str = "http://127.0.0.1:8080/v1"
    claude_binary: str = "claude"
    cache_dir: Path | None = None  # replay/record answers; default: <cache dir>/replay
    # How long one model call (batch calls included) keeps retrying 429, 529,
    # 5xx and dropped connections before it is given up: a budget, not a count.
    retry_seconds: float = Field(600.0, gt=0)


class ThresholdsConfig(_Section):
    # Distinct sessions, never occurrences: two sessions is a claim about how
    # you work; two lines in one session is a claim about one afternoon.
    directive: int = Field(2, ge=1)
    fix: int = Field(2, ge=1)
    # A job asked for twice may just be a job that came up twice.
    request: int = Field(3, ge=1)
    max_per_kind: int = Field(8, ge=1)


class MiningConfig(_Section):
    concurrency: int = Field(4, ge=1, le=32)
    since: str = "30d"
    limit: int | None = Field(None, ge=1)
    # Deterministic signals at or above this confidence whose text the user
    # typed (denial reasons, plan rejections, free-form answers) become
    # directive candidates. 0.75 = HIGH.
    min_signal_confidence: float = Field(DEFAULT_MIN_SIGNAL_CONFIDENCE, ge=0.0, le=1.0)
    # Ask before mining more than this many uncached sessions.
    confirm_above: int = Field(10, ge=0)
    # "auto": above 200 uncached sessions on the anthropic backend a run offers
    # a Message Batch (half the price, results may take hours); "never": always
    # mine directly (a scheduled digest that wants today's answer).
    batch: Literal["auto", "never"] = "auto"


class ApplyConfig(_Section):
    max_lines: int = Field(200, ge=1)
    max_bytes: int = Field(25_000, ge=1)


class StoreConfig(_Section):
    # A `postgresql://` URL puts the store in a shared PostgreSQL + pgvector
    # database (a team's); unset, it is the SQLite file in the data dir.
    database_url: str | None = None


class TeamConfig(_Section):
    # Sharing is opt-in per project: `learn share` sends only candidates of the
    # projects listed here, to database_url: on PostgreSQL as the member role in
    # that URL (`learn team init` makes it), into a SQLite team file under the
    # author id chosen here.
    database_url: str | None = None
    author: str | None = None
    projects: list[Path] = Field(default_factory=list)
    # Whether your name (the admin's name for you; a SQLite file's author id) may
    # be shown next to team proposals (carried with each shared row); by default
    # a team run shows only how many people.
    show_name: bool = False
    # `learn run --team` proposes what at least min_people people said, in at
    # least min_sessions distinct sessions between them.
    min_people: int = Field(default=2, ge=1)
    min_sessions: int = Field(default=2, ge=1)


class Config(_Section):
    models: ModelsConfig = ModelsConfig()
    backend: BackendConfig = BackendConfig()
    thresholds: ThresholdsConfig = ThresholdsConfig()
    mining: MiningConfig = MiningConfig()
    apply: ApplyConfig = ApplyConfig()
    store: StoreConfig = StoreConfig()
    team: TeamConfig = TeamConfig()


def config_path() -> Path:
    return config_dir() / CONFIG_FILENAME


def load_config(path: Path | None = None, env: dict[str, str] | None = None) -> Config:
    """Defaults, then the TOML file (if any), then environment overrides."""
    env = dict(os.environ) if env is None else env
    path = path or config_path()
    data: dict[str, object] = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: {exc}") from exc
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        if err["type"] == "extra_forbidden":
            raise ConfigError(f"{path}: {unknown_name(err['loc'])}") from exc
        raise ConfigError(f"{path}: {where}: {err['msg']}") from exc
    return _apply_env(config, env)


def unknown_name(loc: tuple[int | str, ...]) -> str:
    """`unknown section [model] (did you mean [models]?)`: a misspelled name is an
    error, never skipped (a typo in a threshold would quietly change the proposals),
    and the message names the spelling that was probably meant."""
    import difflib

    *parents, name = (str(p) for p in loc)
    section: type[BaseModel] = Config
    for p in parents:
        field = section.model_fields.get(p)
        inner = field.annotation if field is not None else None
        if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
            break
        section = inner
    known = list(section.model_fields)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if not parents:
        guess = f" (did you mean [{close[0]}]?)" if close else f" (sections: {', '.join(known)})"
        return f"unknown section [{name}]{guess}"
    guess = f" (did you mean {close[0]}?)" if close else f" (keys: {', '.join(known)})"
    return f"unknown key {name!r} in [{'.'.join(parents)}]{guess}"


def _apply_env(config: Config, env: dict[str, str]) -> Config:
    backend = config.backend
    models = config.models
    mining = config.mining
    try:
        if "LEARN_BACKEND" in env:
            backend = backend.model_copy(update={"name": env["LEARN_BACKEND"]})
            BackendConfig.model_validate(backend.model_dump())
        if "LEARN_OPENAI_BASE_URL" in env:
            backend = backend.model_copy(update={"openai_base_url": env["LEARN_OPENAI_BASE_URL"]})
        if "LEARN_MODEL" in env:
            m = env["LEARN_MODEL"]
            models = models.model_copy(update={"mine": m, "name": m, "coverage": m, "judge": m})
        for step in ("mine", "name", "coverage", "judge"):
            key = f"LEARN_MODEL_{step.upper()}"
            if key in env:
                models = models.model_copy(update={step: env[key]})
        if "LEARN_CONCURRENCY" in env:
            mining = MiningConfig.model_validate(
                {**mining.model_dump(), "concurrency": int(env["LEARN_CONCURRENCY"])}
            )
    except (ValidationError, ValueError) as exc:
        raise ConfigError(f"environment override: {exc}") from exc
    store = config.store
    if env.get("LEARN_DATABASE_URL"):
        store = store.model_copy(update={"database_url": env["LEARN_DATABASE_URL"]})
    return config.model_copy(
        update={"backend": backend, "models": models, "mining": mining, "store": store}
    )
