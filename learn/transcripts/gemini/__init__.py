"""Gemini CLI sessions, lowered into the same event model as Claude Code.

- `record`: a chats file in either era's shape (one JSON object; JSONL with
  `$set` metadata lines, re-appended messages and `$rewindTo`) read into one
  conversation.
- `lower`: that conversation as events: typed turns, tool calls and results.
- `places`: where a person's sessions are and which project each folder is.
- `logs`: `logs.json`, the typed messages of sessions no chats file holds
  (the builds before chat recording), read as a chats file of typed turns only.
- `checkpoints`: the shell-mode commands a project's saved histories name, which
  tell a logged `!cmd` from a prompt once `shell_history` has dropped it.
"""
