"""OpenCode sessions, lowered into the same event model as Claude Code.

OpenCode keeps sessions in a store, not one file each, so a session is read out
of the store into one canonical buffer (`export`), and that buffer is what the
parser, the session index and the mining cache see:

- `places`: where the stores are (`$XDG_DATA_HOME/opencode`).
- `database`: the SQLite store `opencode*.db` (tables `session`, `message`,
  `part`; `session_message`, empty in 1.18.33, written by 2.x), opened read-only,
  never written or locked.
- `storage`: the JSON files of the versions before it (`storage/session/…`,
  `storage/message/…`, `storage/part/…`).
- `project_storage`: the per-project JSON store of the first versions
  (`project/<slug>/storage/session/…`), read by `storage`.
- `export`: one session as canonical JSONL records, the same from either store.
- `lower`: that buffer as events: typed turns, replies, tool calls and results.
- `run_message`: an `opencode run` message split into its typed arguments and the
  stdin `run` appended.
"""
