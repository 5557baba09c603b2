"""Reusable fakes for the model backends (no network, no API key).

- `fakes.anthropic_server.FakeAnthropicServer`: the Messages API on 127.0.0.1, for the real SDK.
- `fakes.openai_server.FakeOpenAIServer`: an OpenAI-compatible /v1/chat/completions.
- `fakes.claude_stub.write_claude_stub`: a `claude` executable that prints a print-mode result.

Import them as `fakes.<module>`: pytest puts tests/ on sys.path.
"""
