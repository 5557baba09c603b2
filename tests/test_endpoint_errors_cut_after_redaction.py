"""An endpoint's error text is redacted whole, then cut to its one short line.

Cut first (200 characters), a secret straddling the cut lost the shape that redacts
it: `postgresql://svc:Sup3rLongPassw0rdVal`, 20 of the password's 24 characters, and
`AKIAZ7Q2W3E4R5T6Y`, 17 of the key's 20, were printed on stderr and stored with the
run's failure."""

from __future__ import annotations

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import Reply
from fakes.openai_server import FakeOpenAIServer

from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import ModelError, ModelRequest, ToolSpec
from learn.models.openai_backend import OpenAIBackend
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy

PASSWORD = "Sup3rLongPassw0rdValueQ8"
AWS_ID = "AKIAZ7Q2W3E4R5T6Y7U2"
CUT = 200
TOOL = ToolSpec("record_candidates", "Record.",
                {"type": "object", "properties": {"candidates": {"type": "array"}}})


def _straddling(head: str, before: str, secret_text: str, inside: int) -> str:
    """A message whose `secret_text` begins so that the cut, CUT characters into
    `head` + the message, falls `inside` characters into it."""
    pad = CUT - len(head) - len(before) - inside
    assert pad > 10
    return "request rejected by the gateway; ".ljust(pad, ".") + before + secret_text + " (end)"


CASES = [
    # (what is said before the secret, the secret's text, the secret, cut this far in)
    ("postgresql://svc:", f"{PASSWORD}@db.example/app", PASSWORD, 20),
    ("key id ", AWS_ID, AWS_ID, 17),
]


def _request() -> ModelRequest:
    return ModelRequest("mine", "claude-haiku-4-5", "Find directives.", TOOL, "USER: use bun", 512)


def _assert_redacted_not_cut(message: str, secret: str, inside: int) -> None:
    assert secret[:inside] not in message, message
    assert secret[:8] not in message, message
    assert "[REDACTED" in message, message


@pytest.mark.parametrize(("before", "text", "secret", "inside"), CASES)
@pytest.mark.parametrize("status", [400, 500])
def test_an_anthropic_error_straddling_the_cut_is_redacted_whole(
        before: str, text: str, secret: str, inside: int, status: int) -> None:
    head = ("invalid_request_error" if status == 400 else "api_error") + ": "
    message = _straddling(head, before, text, inside)
    # The cut as it was made before: the secret is there in part, past any shape.
    assert secret[:inside] in (head + message)[:CUT] and secret not in (head + message)[:CUT]
    with FakeAnthropicServer() as fake:
        fake.enqueue_status(status, message=message, times=3)
        backend = AnthropicBackend(api_key="test-key", base_url=fake.base_url,
                                   limiter=RateLimiter(None, None),
                                   retry=RetryPolicy(max_attempts=2, sleep=lambda s: None))
        with pytest.raises(ModelError) as caught:
            backend.call(_request())
    _assert_redacted_not_cut(str(caught.value), secret, inside)


@pytest.mark.parametrize(("before", "text", "secret", "inside"), CASES)
@pytest.mark.parametrize("status", [400, 500])
def test_an_openai_error_straddling_the_cut_is_redacted_whole(
        before: str, text: str, secret: str, inside: int, status: int) -> None:
    message = _straddling("", before, text, inside)
    with FakeOpenAIServer() as fake:
        for _ in range(3):
            fake.enqueue(Reply(status, {"error": {"message": message, "type": "server_error"}}))
        backend = OpenAIBackend(fake.base_url + "/v1", "qwen3-coder",
                                limiter=RateLimiter(None, None),
                                retry=RetryPolicy(max_attempts=2, sleep=lambda s: None))
        backend.memo.set(backend.url, "qwen3-coder", "tools")
        with pytest.raises(ModelError) as caught:
            backend.call(_request())
    _assert_redacted_not_cut(str(caught.value), secret, inside)


def test_an_openai_error_that_is_not_json_is_redacted_whole() -> None:
    message = _straddling("", "postgresql://svc:", f"{PASSWORD}@db.example/app", 20)
    with FakeOpenAIServer() as fake:
        for _ in range(4):  # a 400 may be asked again in another mode
            fake.enqueue(Reply(400, message.encode(), headers={"content-type": "text/plain"}))
        backend = OpenAIBackend(fake.base_url + "/v1", "qwen3-coder",
                                limiter=RateLimiter(None, None),
                                retry=RetryPolicy(max_attempts=1, sleep=lambda s: None))
        backend.memo.set(backend.url, "qwen3-coder", "tools")
        with pytest.raises(ModelError) as caught:
            backend.call(_request())
    _assert_redacted_not_cut(str(caught.value), PASSWORD, 20)


def test_an_error_line_of_megabytes_is_redacted_only_where_it_is_kept() -> None:
    import time

    from learn.models.base import error_line

    start = time.process_time()
    line = error_line('{"error":"x","token":"abc","key":"' + "a" * 5_000_000 + '"}')
    assert time.process_time() - start < 2  # the whole line redacted: 15 s
    assert len(line) == 200
    cut = "x" * 180 + " postgresql://svc:Sup3rLongPassw0rdValue123@db/app"
    assert "Sup3r" not in error_line(cut)
