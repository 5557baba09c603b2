"""GitHub Copilot CLI sessions, lowered into the same event model as Claude Code.

- `events`: an `events.jsonl` stream (`{type, data, id, timestamp, parentId}`)
  as events: typed turns, replies, tool calls and their results.
- `places`: where a person's sessions are; what a session's head says (id, cwd).
- `vscode_prompt`: what the person typed, out of the prompt VS Code writes into a
  session it runs (`<reminder>`, `<attachments>`, `<userRequest>`).
"""
