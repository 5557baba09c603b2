"""The validated model call every step makes: send, check, retry what a retry can fix.

Measured with a model that behaves the way real ones do (issue 11): one answer
cut at `max_tokens` cost 0.2 of end-to-end recall, because the truncated chunk
was cached with its hole, and one malformed answer cost 0.3, because the
session failed and nothing retried it in that run. So, for mining, naming,
coverage and judging alike:

- an answer that stopped at `max_tokens` (or whose tool input arrived as
  partial JSON) is asked again once with a larger budget; still cut, it is a
  `TruncatedAnswer` the caller handles (the miner splits the chunk in two) and
  never a result anyone caches, unless the caller says it can use a partial
  answer (`accept_truncated`, naming and judging, which fall back per item);
- an answer that fails its schema is asked again up to `MAX_REPAIRS` times
  with the validation error sent back as a follow-up turn, so the model
  repairs its own answer; an answer with no tool call at all is asked again
  the same way, without the turn (there is no answer to correct);
- an answer the model refused (stop_reason "refusal", or an OpenAI-compatible
  server's "content_filter") is no answer, whatever tool call came with it: a
  refusal with `{"candidates": []}` was cached as "nothing found" for good (the
  network audit). It is asked once more (`MAX_REFUSALS`), then a `RefusedAnswer`:
  the caller's failure, never cached, so the next run asks again;
- what still fails is a `ModelError` whose `usage` says what the attempts
  cost: failed calls are billed and must show in the run's usage;
- an answer cut at `max_tokens` is one failure whatever its shape: a tool
  input cut into a string (not an object) was "tool input is str, not an
  object" and asked four times, each billed, where the object-shaped cut said
  "answer cut at max_tokens" after two (audit61 F6);
- a cut answer the backend returned but this call did not use is a failed
  call in the run's usage (`count_unusable`), as the string-shaped cut (which
  the backend cannot read) already was: the object-shaped cut showed as 42
  calls and 0 failed, every one unusable.

Transport failures (429, 5xx, timeouts) are retried by the backends
(`learn.models.retry`), below this layer, and are not retried again here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from learn.models.base import (
    REFUSAL_STOPS,
    Backend,
    CallUsage,
    Correction,
    MalformedAnswer,
    ModelError,
    ModelRequest,
    ModelResponse,
    RefusedAnswer,
    TruncatedAnswer,
    count_unusable,
)
from learn.models.catalog import model_info
from learn.models.tool_schema import schema_problems

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

# "Up to two more times" (issue 11): a model that gets the shape wrong three
# times running will not get it right on the fourth, and each try is billed.
MAX_REPAIRS: Final = 2
# A refused answer is asked again this many times: a refusal may be one sample's, and
# one more call is cheaper than a session left unmined; a second refusal of the same
# text is the model's answer to it (each try is billed).
MAX_REFUSALS: Final = 1
# A cut answer is asked again with this many times the budget (once).
GROWTH: Final = 2
_MAX_ERRORS_SHOWN: Final = 5


class AnswerInvalid(ValueError):
    """An answer that does not satisfy its schema; the message is sent back to the model."""


@dataclass(frozen=True, slots=True)
class Checked(Generic[T]):
    value: T
    # The answer that passed; its usage is the total over every attempt.
    response: ModelResponse
    attempts: int = 1
    # Accepted although cut at max_tokens (only with accept_truncated).
    truncated: bool = False
    # Set when the repairs ran out and `lenient` read the answer: what was still wrong.
    still_invalid: str | None = None


def grown_budget(request: ModelRequest, ceiling: int | None = None) -> int:
    """The larger max_tokens for a retry after a cut answer (== current when none is possible)."""
    info = model_info(request.model)
    # Half the window at most: the prompt and the chunk need the rest.
    limit = ceiling if ceiling is not None else min(info.max_output_tokens, info.context_window // 2)
    return max(request.max_tokens, min(limit, request.max_tokens * GROWTH))


def failure_cost(exc: ModelError) -> CallUsage:
    """What a failed call cost: the usage it carries, and never less than one call
    (a 529 storm returns no usage, but the call was made)."""
    return exc.usage if exc.usage.calls else exc.usage + CallUsage(calls=1)


def call_checked(
    backend: Backend,
    request: ModelRequest,
    check: Callable[[Mapping[str, Any]], T],
    *,
    accept_truncated: bool = False,
    max_tokens_ceiling: int | None = None,
    lenient: Callable[[Mapping[str, Any]], T] | None = None,
) -> Checked[T]:
    """Call `backend` until `check(tool_input)` passes on a whole answer (see module doc).

    `check` raises `AnswerInvalid` (its message goes back to the model).
    `lenient` reads an answer that could not be made whole, for its whole
    parts: one still cut after the larger budget (with `accept_truncated`),
    or still invalid after the repairs. Without it, such answers fail.
    Raises `TruncatedAnswer` for an answer still cut after the larger budget,
    and `ModelError` for everything else that still fails, `.usage` set.
    """
    what = request.tool.name
    usage = CallUsage()
    current = request
    attempts = repairs = refusals = 0
    grown = False
    # A cut answer the backend returned (its meter booked it as answered) and this
    # call did not use: booked as a failed call once it is dropped (count_unusable),
    # as a cut the backend could not even read (a MalformedAnswer) already is.
    unused = False
    try:
        while True:
            if unused:  # the cut answer before this attempt was not used
                count_unusable(backend)
                unused = False
            attempts += 1
            try:
                response = backend.call(current)
                unused = response.stop_reason == "max_tokens"
                if response.stop_reason in REFUSAL_STOPS:
                    # Any backend's (a replayed one, claude-cli): the tool input is no answer.
                    raise RefusedAnswer(f"{what}: the model refused to answer (stop_reason "
                                        f"{response.stop_reason})", usage=response.usage,
                                        stop_reason=response.stop_reason)
            except MalformedAnswer as exc:
                usage = usage + failure_cost(exc)
                if isinstance(exc, RefusedAnswer) or exc.stop_reason in REFUSAL_STOPS:
                    if refusals < MAX_REFUSALS:
                        refusals += 1
                        continue
                    raise RefusedAnswer(
                        f"{what}: the model refused to answer (stop_reason {exc.stop_reason}, "
                        f"{attempts} attempts); not kept, the next run asks again",
                        usage=usage, stop_reason=exc.stop_reason) from exc
                if exc.stop_reason == "max_tokens":
                    # Cut (a tool input cut into a string): as a cut object is, below.
                    bigger = grown_budget(current, max_tokens_ceiling)
                    if not grown and bigger > current.max_tokens:
                        grown, current = True, replace(current, max_tokens=bigger)
                        continue
                    raise TruncatedAnswer(_cut(what, current, attempts), usage=usage) from exc
                if repairs < MAX_REPAIRS:
                    repairs += 1
                    continue
                raise MalformedAnswer(f"{exc} ({attempts} attempts)", usage=usage) from exc
            except ModelError as exc:
                exc.usage = usage + failure_cost(exc)
                raise
            usage = usage + response.usage
            cut = response.stop_reason == "max_tokens"
            if cut and not grown:
                bigger = grown_budget(current, max_tokens_ceiling)
                if bigger > current.max_tokens:
                    grown, current = True, replace(current, max_tokens=bigger)
                    continue
            reader = lenient if cut and accept_truncated and lenient is not None else check
            try:
                value = reader(response.tool_input)
            except AnswerInvalid as exc:
                if cut:
                    raise TruncatedAnswer(_cut(what, current, attempts), usage=usage) from exc
                if repairs < MAX_REPAIRS:
                    repairs += 1
                    fix = Correction(dict(response.tool_input), str(exc))
                    current = replace(current, corrections=(*current.corrections, fix))
                    continue
                failed = ModelError(
                    f"{what}: answer did not match the schema after {attempts} attempts ({exc})",
                    usage=usage,
                )
                if lenient is None:
                    raise failed from exc
                try:
                    value = lenient(response.tool_input)
                except AnswerInvalid:
                    raise failed from exc
                # Repairs exhausted: the whole parts are used, the caller reports the rest.
                unused = False
                return Checked(value, replace(response, usage=usage), attempts, cut, str(exc))
            if cut and not accept_truncated:
                raise TruncatedAnswer(_cut(what, current, attempts), usage=usage)
            unused = False
            return Checked(value, replace(response, usage=usage), attempts, cut)
    finally:
        if unused:
            count_unusable(backend)


def _cut(what: str, request: ModelRequest, attempts: int) -> str:
    return f"{what}: answer cut at max_tokens={request.max_tokens} ({attempts} attempts)"


def schema_errors(exc: ValidationError) -> str:
    """A validation error in the words the model can act on: `path: problem`, a few of them."""
    parts = []
    for err in exc.errors()[:_MAX_ERRORS_SHOWN]:
        where = ".".join(str(p) for p in err.get("loc", ())) or "answer"
        parts.append(f"{where}: {err.get('msg')}")
    more = len(exc.errors()) - _MAX_ERRORS_SHOWN
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts) or str(exc)


def validator(schema: type[M]) -> Callable[[Mapping[str, Any]], M]:
    """A `check` for call_checked from a pydantic model."""

    def check(tool_input: Mapping[str, Any]) -> M:
        try:
            return schema.model_validate(dict(tool_input))
        except ValidationError as exc:
            raise AnswerInvalid(schema_errors(exc)) from exc

    return check


def call_tool(backend: Backend, request: ModelRequest, schema: type[M]) -> tuple[M, ModelResponse]:
    """Call `backend`; the answer must match the tool's declared input schema and `schema`.

    Retried as above. The tool's JSON schema is the strict check (every row
    whole and well-typed) that repairs are asked against; `schema` is the
    reader the caller gets, and reads alone what could not be made whole (a
    cut answer, returned with stop_reason "max_tokens", or rows still bad after
    the repairs): naming, coverage and judging use the rows that are whole and
    report the rest, as one bad row must not cost the batch. What still fails
    is a ModelError: callers count it and fall back; it is never fatal to a run.
    """
    read = validator(schema)
    declared = request.tool.input_schema

    def strict(tool_input: Mapping[str, Any]) -> M:
        problems = schema_problems(tool_input, declared)
        if problems:
            raise AnswerInvalid("; ".join(problems))
        return read(tool_input)

    checked = call_checked(backend, request, strict, accept_truncated=True, lenient=read)
    return checked.value, checked.response
