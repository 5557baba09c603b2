"""Every failure of the Anthropic backend names the endpoint it came from, and a cut
answer fails as one, whatever its shape.

Measured before (audit61 F5): with ANTHROPIC_BASE_URL pointing at a gateway, a run
failing on 500, 529 or 429 said only "gave up after 4 attempts: HTTP 500 api_error:
api error" (and "retrying the API: HTTP 500 …"), while a connection error said
"connection error to <the base URL>". The address is shown without the user and
password it may carry (they are the gateway's credentials).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes.anthropic_server import FakeAnthropicServer

from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import ModelError, ModelRequest, ToolSpec, TruncatedAnswer
from learn.models.call import call_checked
from learn.models.meter import UsageMeter
from learn.models.network import shown_url
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy

TOOL = ToolSpec("record_candidates", "Record.", {"type": "object", "properties": {}})
PASSWORD = "hunter2-gateway-secret"


def _request() -> ModelRequest:
    return ModelRequest("mine", "claude-haiku-4-5", "You read transcripts.", TOOL, "USER: hi", max_tokens=256)


@pytest.fixture
def fake() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as server:
        yield server


def _backend(base_url: str, told: list[str] | None = None, *, timeout: float = 30.0) -> AnthropicBackend:
    policy = RetryPolicy(max_attempts=2, sleep=lambda s: None)
    if told is not None:
        policy.outage.reporter = lambda notice: told.append(notice.line())
    return AnthropicBackend(api_key="test-key", base_url=base_url.replace("http://", f"http://gw:{PASSWORD}@"),
                            timeout=timeout, limiter=RateLimiter(None, None), retry=policy)


def _failure(backend: AnthropicBackend) -> str:
    with pytest.raises(ModelError) as caught:
        backend.call(_request())
    return str(caught.value)


@pytest.mark.parametrize("status", [500, 529, 429])
def test_a_server_error_that_is_retried_names_the_endpoint(fake: FakeAnthropicServer, status: int) -> None:
    # A retry-after long enough to be told (REPORT_AFTER_SECONDS), well within the budget.
    fake.enqueue_status(status, headers={"retry-after": "5"}, times=2)
    told: list[str] = []
    line = _failure(_backend(fake.base_url, told))
    assert f"gave up after 2 attempts: HTTP {status} " in line
    assert f" from {fake.base_url} " in line, line  # was: "HTTP 500 api_error: api error (…)"
    assert told and all(f" from {fake.base_url}" in said for said in told), told
    assert all(PASSWORD not in said for said in (line, *told))


@pytest.mark.parametrize("status", [400, 401, 404])
def test_a_refusal_names_the_endpoint(fake: FakeAnthropicServer, status: int) -> None:
    fake.enqueue_status(status)
    line = _failure(_backend(fake.base_url))
    assert f"anthropic: HTTP {status} " in line and f" from {fake.base_url}" in line, line
    assert PASSWORD not in line


def test_a_timeout_names_the_endpoint_as_a_connection_error_does(fake: FakeAnthropicServer) -> None:
    fake.enqueue_stall(3.0)
    fake.enqueue_stall(3.0)
    address = fake.base_url
    timed_out = _failure(_backend(address, timeout=0.3))
    assert f"request timed out waiting for {address} " in timed_out, timed_out
    fake.stop()  # nothing answers there now
    refused = _failure(_backend(address))
    assert f"connection error to {address} " in refused, refused
    assert PASSWORD not in timed_out + refused


def test_an_address_is_shown_without_what_can_carry_a_key() -> None:
    assert shown_url("https://user:pw@gw.example:8443/anthropic?api_key=sk-1#x") == \
        "https://gw.example:8443/anthropic"
    assert shown_url("https://api.anthropic.com") == "https://api.anthropic.com"


# -- An answer cut at max_tokens is one failure, named and counted as one ----------------
# Measured before (audit61 F6): a tool input cut into a string was "tool input is str,
# not an object (4 attempts)", each attempt billed, where a cut object was "answer cut at
# max_tokens=16384 (2 attempts)"; and the cut objects showed in the run's usage as 42
# calls with 0 failed, though none was usable.

CUT_STRING = '{"candidates": [{"kind": "directive", "te'
CUT_OBJECT = {"candidates": [{"kind": "directive"}]}


def _read(tool_input: object) -> object:
    return tool_input


def _cut_failure(fake: FakeAnthropicServer, shape: str, meter: UsageMeter | None = None) -> str:
    for _ in range(2):
        if shape == "string":
            fake.enqueue_raw_input(CUT_STRING)
        else:
            fake.enqueue_truncated(CUT_OBJECT)
    before = len(fake.requests)
    with pytest.raises(TruncatedAnswer) as caught:
        call_checked(meter or _backend(fake.base_url), _request(), _read)
    assert len(fake.requests) - before == 2  # the larger budget once, as for any cut answer
    return str(caught.value)


def test_a_tool_input_cut_into_a_string_fails_as_a_cut_answer_after_two_attempts(
        fake: FakeAnthropicServer) -> None:
    as_string = _cut_failure(fake, "string")
    assert as_string == "record_candidates: answer cut at max_tokens=512 (2 attempts)"
    assert "not an object" not in as_string
    assert _cut_failure(fake, "object") == as_string


@pytest.mark.parametrize("shape", ["string", "object"])
def test_cut_answers_that_were_not_used_are_failed_calls_in_the_usage(
        fake: FakeAnthropicServer, shape: str) -> None:
    meter = UsageMeter(_backend(fake.base_url))
    _cut_failure(fake, shape, meter)
    assert meter.usage.calls == 2  # both billed
    assert meter.failed_calls == 2  # was 0 for the object shape
    assert meter.run_usage().failed_calls == 2


def test_a_cut_answer_the_caller_used_is_not_a_failed_call(fake: FakeAnthropicServer) -> None:
    meter = UsageMeter(_backend(fake.base_url))
    for _ in range(2):
        fake.enqueue_truncated(CUT_OBJECT)
    checked = call_checked(meter, _request(), _read, accept_truncated=True)
    assert checked.truncated
    # The first cut was asked again larger (unused, failed); the second was read.
    assert (meter.usage.calls, meter.failed_calls) == (2, 1)
