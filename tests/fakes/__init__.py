"""Reusable fakes for the model backends (no network, no API key).

- `fakes.anthropic_server.FakeAnthropicServer`: the Messages API on 127.0.0.1, for the real SDK.
- `fakes.openai_server.FakeOpenAIServer`: an OpenAI-compatible /v1/chat/completions.
- `fakes.openai_modes_server.ModesServer`: the same, answering json_schema and tools requests
  the way a given kind of server does (supports, rejects, ignores, rambles).
- `fakes.claude_stub.write_claude_stub`: a `claude` executable that prints a print-mode result.

Import them as `fakes.<module>`: pytest puts tests/ on sys.path.
"""
