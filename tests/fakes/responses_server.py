"""A fake OpenAI Responses server that plays a scripted model for the REAL Codex CLI.

`codex exec` with a custom provider (`wire_api = "responses"`, base URL here) posts
to `/v1/responses` and reads a server-sent event stream. Codex 0.171 offers its
shell as the function `exec_command` with a `cmd` string; each turn of the script
calls it with the next command (not in a login shell, which would reset PATH and
hide a test's stand-in binaries), then the model says "Done.". Every request is
kept, so a test can read the `function_call_output` Codex sent back (what the
command printed, or why a hook stopped it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from fakes.http_server import FakeHTTPServer, RecordedRequest, Reply

USAGE = {"input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
         "output_tokens_details": None, "total_tokens": 15}


def sse(events: Sequence[Mapping[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


class ScriptedResponses(FakeHTTPServer):
    def __init__(self, commands: Sequence[str]) -> None:
        super().__init__()
        self.commands = list(commands)
        self.turns = 0

    def default_reply(self, request: RecordedRequest) -> Reply:
        if not request.path.split("?")[0].rstrip("/").endswith("/responses"):
            return Reply(404, {"error": {"message": "not here"}})
        n = self.turns
        self.turns += 1
        if n < len(self.commands):
            item: dict[str, Any] = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                                    "name": "exec_command", "status": "completed",
                                    "arguments": json.dumps({"cmd": self.commands[n], "login": False})}
        else:
            item = {"type": "message", "id": f"msg_{n}", "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}
        events = [{"type": "response.created", "response": {"id": f"resp_{n}"}},
                  {"type": "response.output_item.added", "output_index": 0, "item": item},
                  {"type": "response.output_item.done", "output_index": 0, "item": item},
                  {"type": "response.completed", "response": {"id": f"resp_{n}", "usage": USAGE}}]
        return Reply(200, sse(events), headers={"content-type": "text/event-stream"})

    def outputs(self) -> list[str]:
        """What Codex sent back for each command, in order."""
        out: dict[str, str] = {}
        for r in self.requests:
            for item in r.json.get("input") or []:
                if isinstance(item, dict) and item.get("type") == "function_call_output":
                    out.setdefault(str(item.get("call_id")), str(item.get("output")))
        return [out.get(f"call_{i}", "") for i in range(len(self.commands))]

    def provider_args(self) -> list[str]:
        """`codex` options that point it at this server."""
        return ["-c", f'model_providers.fake.base_url="{self.base_url}/v1"',
                "-c", 'model_providers.fake.wire_api="responses"',
                "-c", 'model_providers.fake.name="fake"',
                "-c", 'model_providers.fake.env_key="OPENAI_API_KEY"',
                "-c", 'model_provider="fake"', "-c", 'model="gpt-5"']
