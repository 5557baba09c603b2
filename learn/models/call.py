"""One validated model call: send the forced-tool request, check the answer's shape."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from learn.models.base import Backend, ModelError, ModelRequest, ModelResponse

T = TypeVar("T", bound=BaseModel)


def call_tool(backend: Backend, request: ModelRequest, schema: type[T]) -> tuple[T, ModelResponse]:
    """Call `backend` and validate the tool input against `schema`.

    A malformed answer is a ModelError like any other failure: callers count it
    and fall back; it is never fatal to a run.
    """
    response = backend.call(request)
    try:
        parsed = schema.model_validate(dict(response.tool_input))
    except ValidationError as exc:
        first = exc.errors()[0] if exc.errors() else {"msg": str(exc)}
        raise ModelError(
            f"{request.tool.name}: answer did not match the schema ({first.get('msg')})"
        ) from exc
    return parsed, response
