"""Configuration: `~/.config/learn/config.toml`, then environment, then flags.

Every setting has a default that works without a config file. The file is
optional and partial; an invalid file is a usage error (exit 2) with the path
and the offending key, never a silent fallback, because a typo in a threshold
would otherwise quietly change what gets proposed.

Environment overrides (handy in CI and in the Claude Code command):
LEARN_BACKEND, LEARN_MODEL (all steps), LEARN_MODEL_MINE / _NAME / _COVERAGE /
_JUDGE, LEARN_CONCURRENCY, LEARN_IN_FLIGHT, LEARN_REQUESTS_PER_MINUTE,
LEARN_OPENAI_BASE_URL, LEARN_DATABASE_URL.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Final, Literal, TypeVar, get_args

import msgspec
from msgspec import Meta, field
from msgspec.structs import replace

from learn.config_defaults import CONFIG_FILENAME, DEFAULT_MIN_SIGNAL_CONFIDENCE, DEFAULT_SINCE
from learn.models.catalog import DEFAULT_MODELS
from learn.models.ratelimit import DEFAULT_MAX_IN_FLIGHT
from learn.paths import config_dir

BackendName = Literal["anthropic", "claude-cli", "openai", "replay"]

# The constraints of the settings below (msgspec checks them when a config is read).
_AtLeastOne = Annotated[int, Meta(ge=1)]


class ConfigError(Exception):
    """The config file or an override is invalid. The message names the place."""


class StoreURLError(ConfigError):
    """A store URL (LEARN_DATABASE_URL, `[store] database_url`) learn cannot use."""


# msgspec, not pydantic: every `learn show` and `learn sessions` of a person with a
# config file reads it, and importing pydantic and building these models was ~0.1 s
# of CPU each time (the 6 MB session's show 0.331 -> 0.455 s, a warm listing of
# 1,000 sessions 0.196 -> 0.301 s: medians of seven, benchmarks/speed.py's homes),
# a third of what either may take (issue 32). A setting's type is checked as
# pydantic's lax mode did (`strict=False`: "5" is read as 5), a misspelled name is
# an error, and a section is replaced with `msgspec.structs.replace`.
class _Section(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


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
    name_batch: _AtLeastOne | None = None

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
    retry_seconds: Annotated[float, Meta(gt=0)] = 600.0
    # Pacing of every model call, shared by the run's workers (learn.models.ratelimit):
    # the most requests open at once (a llama.cpp server with one slot wants 1),
    # whatever [mining] concurrency says...
    in_flight: Annotated[int, Meta(ge=1, le=32)] = DEFAULT_MAX_IN_FLIGHT
    # ...and a ceiling on requests a minute on every backend (a proxy's or a low
    # tier's 20); unset: none on claude-cli and openai, and on anthropic 50 until
    # the replies' headers give the account's. The upper bound only keeps out
    # TOML's `inf`, on which the bucket's arithmetic is NaN.
    requests_per_minute: Annotated[float, Meta(gt=0, le=1_000_000)] | None = None


class ThresholdsConfig(_Section):
    # Distinct sessions, never occurrences: two sessions is a claim about how
    # you work; two lines in one session is a claim about one afternoon.
    directive: _AtLeastOne = 2
    fix: _AtLeastOne = 2
    # A job asked for twice may just be a job that came up twice.
    request: _AtLeastOne = 3
    max_per_kind: _AtLeastOne = 8


class MiningConfig(_Section):
    concurrency: Annotated[int, Meta(ge=1, le=32)] = 4
    # The sessions `learn run` and `learn plan` read when --since / --limit are not
    # given: active within this span (or since this date; "" for no age limit), at
    # most `limit` of them, newest first. `since` is read, and checked, as the flag
    # is (learn.commands._scope.configured_scope: parse_since is the transcripts').
    since: str = DEFAULT_SINCE
    limit: _AtLeastOne | None = None
    # Deterministic signals at or above this confidence whose text the user
    # typed (denial reasons, plan rejections, free-form answers) become
    # directive candidates. 0.75 = HIGH.
    min_signal_confidence: Annotated[float, Meta(ge=0.0, le=1.0)] = DEFAULT_MIN_SIGNAL_CONFIDENCE
    # Ask before mining more than this many uncached sessions.
    confirm_above: Annotated[int, Meta(ge=0)] = 10
    # "auto": above 200 uncached sessions on the anthropic backend a run offers
    # a Message Batch (half the price, results may take hours); "never": always
    # mine directly (a scheduled digest that wants today's answer).
    batch: Literal["auto", "never"] = "auto"


class ApplyConfig(_Section):
    max_lines: _AtLeastOne = 200
    max_bytes: _AtLeastOne = 25_000


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
    projects: list[Path] = field(default_factory=list)
    # Whether your name (the admin's name for you; a SQLite file's author id) may
    # be shown next to team proposals (carried with each shared row); by default
    # a team run shows only how many people.
    show_name: bool = False
    # `learn run --team` proposes what at least min_people people said, in at
    # least min_sessions distinct sessions between them.
    min_people: _AtLeastOne = 2
    min_sessions: _AtLeastOne = 2


class Config(_Section):
    models: ModelsConfig = field(default_factory=ModelsConfig)
    backend: BackendConfig = field(default_factory=BackendConfig)
    thresholds: ThresholdsConfig = field(default_factory=ThresholdsConfig)
    mining: MiningConfig = field(default_factory=MiningConfig)
    apply: ApplyConfig = field(default_factory=ApplyConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    team: TeamConfig = field(default_factory=TeamConfig)


def _path(kind: type, value: Any) -> Any:
    """A TOML string read as a Path (msgspec's hook for the types it does not know)."""
    if kind is Path and isinstance(value, str | Path):
        return Path(value)
    raise ValueError(f"Expected a path, got {value!r}")


def _json_value(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    raise NotImplementedError(type(value))


_ENCODER = msgspec.json.Encoder(enc_hook=_json_value)


_S = TypeVar("_S", bound=_Section)


# The words pydantic's lax mode read as a bool (case-insensitive), which the config
# was read with until 2026-12-03: `show_name = "yes"` loaded then. msgspec reads only
# "true"/"false"/"1"/"0" (and 1/0), so an upgrade stopped every `learn run` of such a
# config with exit 2; the old spellings are read as they were. Anything else is
# still an error.
_TRUE: Final = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE: Final = frozenset({"0", "off", "f", "false", "n", "no"})


def _old_booleans(kind: type[_Section], data: object) -> object:
    """`data` with each bool setting of `kind` (nested sections too) that pydantic read
    as a bool made one: "yes"/"no", "on"/"off", "y"/"n", "t"/"f" and 1.0/0.0."""
    if not isinstance(data, dict):
        return data
    out = dict(data)
    for f in msgspec.structs.fields(kind):
        if f.encode_name not in out:
            continue
        value = out[f.encode_name]
        if isinstance(f.type, type) and issubclass(f.type, _Section):
            out[f.encode_name] = _old_booleans(f.type, value)
        elif f.type is bool:
            if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
                out[f.encode_name] = value.lower() in _TRUE
            elif isinstance(value, float) and value in (0.0, 1.0):
                out[f.encode_name] = value == 1.0
    return out


def checked(kind: type[_S], data: object) -> _S:
    """`data` (a TOML table, a section's fields) as `kind`, every setting checked;
    msgspec.ValidationError names what is wrong and where."""
    return msgspec.convert(_old_booleans(kind, data), kind, strict=False, dec_hook=_path)


def config_json(config: Config) -> str:
    """Every setting of `config` as JSON, in order (a key that changes when one does)."""
    return _ENCODER.encode(config).decode()


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
        except UnicodeDecodeError as exc:
            # TOML is UTF-8 by definition; a file saved as Latin-1 (an "é" as \xe9)
            # gave a traceback on every command.
            byte = exc.object[exc.start]
            raise ConfigError(f"{path}: not valid UTF-8 (byte {byte:#04x} at offset "
                              f"{exc.start}); a config file must be saved as UTF-8") from exc
        except RecursionError:  # tomllib's limit is the stack's: a few hundred levels
            raise ConfigError(f"{path}: nested too deep to read") from None
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: {exc}") from exc
    try:
        config = checked(Config, data)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{path}: {_said(str(exc))}") from exc
    return _apply_env(config, env)


# How msgspec says what is wrong: "<what> - at `$.<where>`" (no "at" for the top).
_AT = re.compile(r"(?s)(.*?)(?: - at `\$\.?(.*)`)?")
_UNKNOWN = re.compile(r"Object contains unknown field `(.*)`")


def _said(error: str, section: str = "") -> str:
    """A validation error as the config's own words: `thresholds.directive: <what>`
    (with the choices, for a value that must be one of a few), or the misspelled
    name and the one probably meant (`unknown_name`). `section`: where the checked
    table sits in the config (an override checks one section)."""
    found = _AT.fullmatch(error)
    what, where = (found.group(1), found.group(2) or "") if found else (error, "")
    loc = tuple(p for p in re.split(r"\.|\[|\]", f"{section}.{where}") if p)
    unknown = _UNKNOWN.fullmatch(what)
    if unknown is not None:
        return unknown_name((*loc, unknown.group(1)))
    choices = get_args(_field_type(loc))
    if what.startswith("Invalid enum value") and choices:
        what += f" (one of: {', '.join(map(repr, choices))})"
    return f"{'.'.join(loc)}: {what}" if loc else what


def _field_type(loc: tuple[str, ...]) -> object:
    """The declared type of the setting at `loc` (None if there is none)."""
    kind: object = Config
    for name in loc:
        if not (isinstance(kind, type) and issubclass(kind, _Section)):
            return None
        kind = next((f.type for f in msgspec.structs.fields(kind) if f.name == name), None)
    return kind


def unknown_name(loc: tuple[int | str, ...]) -> str:
    """`unknown section [model] (did you mean [models]?)`: a misspelled name is an
    error, never skipped (a typo in a threshold would quietly change the proposals),
    and the message names the spelling that was probably meant."""
    import difflib

    *parents, name = (str(p) for p in loc)
    section = _field_type(tuple(parents))
    if not (isinstance(section, type) and issubclass(section, _Section)):
        section = Config
    known = [f.name for f in msgspec.structs.fields(section)]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if not parents:
        guess = f" (did you mean [{close[0]}]?)" if close else f" (sections: {', '.join(known)})"
        return f"unknown section [{name}]{guess}"
    guess = f" (did you mean {close[0]}?)" if close else f" (keys: {', '.join(known)})"
    return f"unknown key {name!r} in [{'.'.join(parents)}]{guess}"


# The overrides load_config checks, each with the setting it sets: an error names the
# variable and its value as well as the setting (`LEARN_IN_FLIGHT=0` said only
# "backend.in_flight: Expected `int` >= 1", and the person had to guess which variable).
_CHECKED: Final = (("LEARN_BACKEND", "backend", "name"),
                   ("LEARN_CONCURRENCY", "mining", "concurrency"),
                   ("LEARN_IN_FLIGHT", "backend", "in_flight"),
                   ("LEARN_REQUESTS_PER_MINUTE", "backend", "requests_per_minute"))


def _apply_env(config: Config, env: dict[str, str]) -> Config:
    sections: dict[str, _Section] = {"backend": config.backend, "mining": config.mining}
    for var, name, setting in _CHECKED:
        if var not in env:
            continue
        given = env[var]
        try:
            # Given as text, read as the file's "5" is (concurrency as an int, as ever).
            value: object = int(given) if setting == "concurrency" else given
        except ValueError as exc:
            raise ConfigError(f"environment override: {var}={given!r}: {exc}") from exc
        sections[name] = _overridden(var, given, name, sections[name], {setting: value})
    backend = sections["backend"]
    mining = sections["mining"]
    assert isinstance(backend, BackendConfig) and isinstance(mining, MiningConfig)
    if "LEARN_OPENAI_BASE_URL" in env:
        backend = replace(backend, openai_base_url=env["LEARN_OPENAI_BASE_URL"])
    models = config.models
    if "LEARN_MODEL" in env:
        m = env["LEARN_MODEL"]
        models = replace(models, mine=m, name=m, coverage=m, judge=m)
    for step in ("mine", "name", "coverage", "judge"):
        key = f"LEARN_MODEL_{step.upper()}"
        if key in env:
            models = replace(models, **{step: env[key]})
    store = config.store
    if env.get("LEARN_DATABASE_URL"):
        store = replace(store, database_url=env["LEARN_DATABASE_URL"])
    return replace(config, backend=backend, models=models, mining=mining, store=store)


def _overridden(var: str, given: str, name: str, section: _S, values: dict[str, object]) -> _S:
    """`section` with `values` in it, checked as if the config file had said them; an
    error names the variable `var` that said them and its value `given`."""
    try:
        return checked(type(section), {**msgspec.structs.asdict(section), **values})
    except msgspec.ValidationError as exc:
        raise ConfigError(
            f"environment override: {var}={given!r}: {_said(str(exc), name)}") from exc
