"""A Messages server that answers from files, for running real transcripts end to end
with a careful model answering by hand (a person, or an agent reading the requests).

    .venv/bin/python benchmarks/answer_desk.py DESK_DIR &
    ANTHROPIC_API_KEY=desk ANTHROPIC_BASE_URL=$(cat DESK_DIR/url) learn run ...

No model is reachable from the machines learn is built on, and a metric from an
oracle that reads the gold is 1.0 by construction. This desk sits where the API
would: every request learn sends (the real SDK, the real prompts) is answered from
`DESK_DIR/answers/<tool>/<key>.json` (the tool's input, as the model would have
given it) when that file exists. When it does not, the request is written to
`DESK_DIR/pending/<tool>/<key>.json` (system prompt, tool schema, the last user
message) and refused with a 400 that names the file, so the run fails that call
the way it fails any refused call and nothing is invented. Whoever answers reads
the pending files, writes the answers, and the run is repeated until nothing is
pending; the mining cache keeps what was already answered.

The key is the replay backend's (tool name + last user message), so the answers
can also be copied into a replay cache.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import RecordedRequest, Reply

from learn.models.replay import replay_key


class AnswerDesk(FakeAnthropicServer):
    def __init__(self, desk: Path) -> None:
        super().__init__()
        self.desk = desk
        self.answered = 0
        self.refused = 0

    def default_reply(self, request: RecordedRequest) -> Reply:
        path = request.path.split("?")[0].rstrip("/")
        if not path.endswith("/v1/messages"):
            return super().default_reply(request)
        tool = request.tool_name or "unknown"
        key = replay_key(tool, request.user_text)
        answer = self.desk / "answers" / tool / f"{key}.json"
        if answer.exists():
            self.answered += 1
            tool_input: dict[str, Any] = json.loads(answer.read_text(encoding="utf-8"))
            reply = self.tool_reply(tool_input)
            return self.streamed(request, reply) if request.json.get("stream") else reply
        pending = self.desk / "pending" / tool / f"{key}.json"
        pending.parent.mkdir(parents=True, exist_ok=True)
        tools = request.json.get("tools") or []
        schema = next((t.get("input_schema") for t in tools if t.get("name") == tool), None)
        pending.write_text(json.dumps({
            "tool": tool,
            "key": key,
            "answer_to": str(answer),
            "system": request.system_text,
            "input_schema": schema,
            "user": request.user_text,
        }, ensure_ascii=False, indent=1), encoding="utf-8")
        self.refused += 1
        return self.error_reply(400, message=f"no answer on file yet: {pending}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("desk", type=Path)
    args = parser.parse_args()
    desk = AnswerDesk(args.desk)
    with desk:
        args.desk.mkdir(parents=True, exist_ok=True)
        (args.desk / "url").write_text(desk.base_url, encoding="utf-8")
        print(f"answer desk at {desk.base_url} over {args.desk}", flush=True)
        try:
            while True:
                time.sleep(5)
        except KeyboardInterrupt:
            print(f"answered {desk.answered}, refused {desk.refused}")


if __name__ == "__main__":
    main()
