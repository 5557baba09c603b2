"""The one contract every model backend implements.

Every model call in learn is a single request that offers exactly one tool and
forces it; the answer is that tool's input. Backends (Anthropic API, the
`claude` CLI, an OpenAI-compatible endpoint, replay) differ only in transport.
Callers validate the returned `tool_input` with pydantic (see `learn.models.call`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

Step = Literal["mine", "name", "coverage", "judge", "command"]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str  # record_candidates | assign_labels | check_coverage | record_verdicts | write_commands
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Correction:
    """An earlier answer to the same request and what was wrong with it.

    Sent back as a follow-up turn (the answer as the assistant's tool call, the
    error as its tool result) so the model fixes that answer instead of
    sampling a fresh one blind.
    """

    answer: Mapping[str, Any]
    error: str


@dataclass(frozen=True, slots=True)
class ModelRequest:
    step: Step
    model: str
    system: str  # the fixed prompt (cached by backends that support caching)
    tool: ToolSpec
    # The last (and only) user message: the transcript chunk, or the headed
    # numbered lists ending with "ITEMS:". Replay keys on (tool.name, user).
    user: str
    max_tokens: int = 4096
    # Follow-up turns after a schema-invalid answer (see learn.models.call).
    # Never part of a replay key: the key is (tool.name, user). Backends that
    # cannot send turns resend the request as it is, which still resamples.
    corrections: tuple[Correction, ...] = ()

    def __post_init__(self) -> None:
        # The one object every backend's body is built from (the Messages API and its
        # batches, chat completions, `claude -p`) and the recorder's excerpt: the
        # endpoint's own key never goes in one, whatever its shape. A session that ran
        # `env` holds a proxy key no redaction rule knows (learn.held_secrets). Only the
        # endpoint's credentials: the cost is a substring test per request.
        from learn.held_secrets import held_secrets, redact_held

        held = tuple(s for s in held_secrets() if s.endpoint)
        if not held:
            return
        for name in ("system", "user"):
            object.__setattr__(self, name, redact_held(getattr(self, name), held))
        if self.corrections:
            # The answer too: it goes back to the endpoint as the assistant's turn.
            object.__setattr__(self, "corrections", tuple(
                Correction(each_string(c.answer, lambda s: redact_held(s, held)),
                           redact_held(c.error, held))
                for c in self.corrections))


@dataclass(frozen=True, slots=True)
class CallUsage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def __add__(self, other: CallUsage) -> CallUsage:
        return CallUsage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cost_usd + other.cost_usd,
            self.calls + other.calls,
        )


@dataclass(frozen=True, slots=True)
class ModelResponse:
    tool_input: Mapping[str, Any]
    model: str
    usage: CallUsage = field(default_factory=CallUsage)
    # "max_tokens" means the answer was cut off: callers treat the input as
    # possibly partial.
    stop_reason: str | None = None

    def __post_init__(self) -> None:
        # The one object every backend's answer becomes (direct, batched, replayed),
        # so the one place an answer is redacted before learn reads it: a verdict's
        # rationale quoting a database URL with its password, an AWS key or the
        # endpoint's own key went into `learn run --json`, report.html, the store and
        # the repair turn sent back to the endpoint. Idempotent (markers match no
        # rule), so a replayed answer, a `replace` of this one, and a quote checked
        # against the person's redacted words (learn.mining.verify) read the same.
        object.__setattr__(self, "tool_input", redacted_answer(self.tool_input))


def each_string(value: Any, fn: Callable[[str], str]) -> Any:
    """`value` (an answer: objects, arrays, scalars) with `fn` applied to every string
    in it; keys are the schema's names and are kept."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, Mapping):
        return {k: each_string(v, fn) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [each_string(v, fn) for v in value]
    return value


def redacted_answer(tool_input: Mapping[str, Any]) -> dict[str, Any]:
    """`tool_input` with every string as `learn.redaction.redact.redact_message` leaves it:
    the held credentials by value, then every shape. The held values are read once
    per answer, not once per string."""
    from learn.held_secrets import held_secrets, redact_held
    from learn.redaction.redact import redact

    held = held_secrets()
    return {k: each_string(v, lambda s: redact(redact_held(whole_chars(s), held)))
            for k, v in tool_input.items()}


def whole_chars(text: str) -> str:
    """`text` with each lone surrogate (a JSON `\\ud800` with no pair) as U+FFFD: no
    UTF-8 spells one, and a rule text holding one made the store's write raise, so every
    `learn run` asked the model again and failed the same way."""
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


# What an endpoint's error keeps of its text: one line, this long.
ERROR_CHARS: Final = 200


def error_line(text: str, limit: int = ERROR_CHARS) -> str:
    """The first line of an endpoint's error text, redacted whole and then cut to
    `limit` ("" for none). In that order: cut first, a secret straddling the cut
    (`postgresql://svc:Sup3rLongPassw0rdVal`, 20 of its password's 24 characters)
    no longer had the shape that redacts it, and was printed and stored in part."""
    from learn.redaction.redact import redact_message

    # The first line and a margin past the cut, not the whole body: a gateway's error
    # can be megabytes on one line (5 MB took 15 s to redact), and no secret runs longer
    # than the margin, so one across the cut is still read whole.
    stripped = text.strip()
    first = stripped.splitlines()[0] if stripped else ""
    clean = redact_message(first[: limit + _SECRET_MARGIN]).strip()
    return clean.splitlines()[0][:limit] if clean else ""


# Characters read past an error line's cut for redaction (longer than any one-line secret).
_SECRET_MARGIN: Final = 4096


class ModelError(Exception):
    """A model call failed for good (after retries). The message says why in one line.

    `usage` is what the failed call still cost (tokens of answers that could
    not be used), so a run of failed calls does not report zero model calls.
    """

    def __init__(self, message: str = "", *, usage: CallUsage | None = None,
                 status: int | None = None) -> None:
        super().__init__(message)
        self.usage = usage if usage is not None else CallUsage()
        # The HTTP status of a refusal that is final as it is (a 404 from an endpoint
        # without Message Batches, say), for callers that handle one status their way.
        self.status = status


class ReplayMissError(ModelError):
    """The replay backend has no recorded answer for this request."""

    def __init__(self, key: str, tool: str) -> None:
        super().__init__(
            f"no recorded answer for {tool} (key {key}); run with --record against a real backend to fill it"
        )
        self.key = key
        self.tool = tool


class Backend(Protocol):
    name: str

    def call(self, request: ModelRequest) -> ModelResponse:
        """Send one forced-tool request; raise ModelError when it cannot be answered."""
        ...


class MalformedAnswer(ModelError):
    """The model answered, but not with a usable tool call (no tool_use block,
    an input that is not a JSON object). Worth another attempt; with
    stop_reason "max_tokens" it is a cut answer (partial JSON), not a bad one."""

    def __init__(
        self, message: str, *, usage: CallUsage | None = None, stop_reason: str | None = None
    ) -> None:
        super().__init__(message, usage=usage)
        self.stop_reason = stop_reason


# The stop reasons that say the model declined to answer: the Messages API's "refusal"
# (its classifiers stopped the answer; what came before may be a valid-looking empty
# tool call) and an OpenAI-compatible server's "content_filter".
REFUSAL_STOPS: Final = frozenset({"refusal", "content_filter"})


class RefusedAnswer(MalformedAnswer):
    """The model stopped with a refusal (`REFUSAL_STOPS`): whatever it sent is not an
    answer. A refused chunk read as `{"candidates": []}` was cached as "nothing found"
    and never asked again (the network audit: 7 of 7 sessions lost for good, and
    naming's empty answer stored as the model's names). Asked once more, then a
    failure of that call: never cached, so the next run asks again."""


class KeyRefused(ModelError):
    """The endpoint refused the key (HTTP 401 or 403) after the preflight took it: a
    key revoked, or a gateway that only checks it on calls. Every later call would be
    refused the same way (8 refused requests for 7 sessions in the audit, hundreds on a
    large home), so the backend sends none after the first (`Outage.stop`) and the
    miner stops the run (exit 3, as a key refused by the preflight). `sent` is False for
    a call held back after that refusal: the first refusal is the one to report."""

    def __init__(self, message: str = "", *, usage: CallUsage | None = None,
                 status: int | None = None, sent: bool = True) -> None:
        super().__init__(message, usage=usage, status=status)
        self.sent = sent


class TruncatedAnswer(ModelError):
    """The answer stopped at max_tokens even with the largest budget tried.

    The caller decides what is next (the miner splits the chunk in two); the
    partial answer is never cached.
    """


class PromptTooLong(ModelError):
    """The endpoint refused the request as too large for the model (413, or a 400
    saying "prompt is too long" / the context length): the same request fails the
    same way every time, so it is never retried as it is. The miner splits the
    chunk in two, as for a cut answer; other callers count it and fall back."""


def abort_calls(backend: object) -> None:
    """End the calls `backend` has running and refuse new ones, where it can (the
    claude-cli backend ends its `claude` processes); a wrapper (the usage meter, the
    recorder) is followed through its `inner`. For an interrupted run."""
    abort = _through_wrappers(backend, "abort")
    if abort is not None:
        abort()


def count_unusable(backend: object) -> None:
    """Tell `backend`'s usage meter (learn.models.meter), through wrappers' `inner`,
    that an answer it booked as answered was not used (cut at max_tokens): a failed
    call. Nothing to tell without a meter."""
    unusable = _through_wrappers(backend, "unusable")
    if unusable is not None:
        unusable()


def _through_wrappers(backend: object, name: str) -> Callable[[], object] | None:
    """The first callable `name` of `backend` or of the backends it wraps (`inner`)."""
    seen: object | None = backend
    while seen is not None:
        found = getattr(seen, name, None)
        if callable(found):
            return found  # type: ignore[no-any-return]
        seen = getattr(seen, "inner", None)
    return None


def report_waits(backend: object, reporter: Callable[[Any], None]) -> None:
    """Have `backend` tell `reporter` when its calls wait out an overload
    (learn.models.retry.WaitNotice), through wrappers' `inner`; a backend that
    does not retry (replay, claude-cli) has nothing to say."""
    seen: object | None = backend
    while seen is not None:
        outage = getattr(seen, "outage", None)
        if outage is not None and hasattr(outage, "reporter"):
            outage.reporter = reporter
            return
        seen = getattr(seen, "inner", None)
