"""The session view: what one session looks like once the noise is gone.

- `model`: the shapes (Session, HumanTurn, ToolCall, ...); `session` builds them;
  `many` reads a session's aside files and views many files in order.
- `branch`: the active branch of the entry DAG (the context).
- `evidence`: every typed turn in the file (the evidence); `typed` is the one
  decision "did the person type this?", with `exclusions` (every rule for what
  is not a human turn), `answers` (AskUserQuestion answers), `relayed` (other
  agents' words pasted in), `resume` (turns copied by `claude --resume`) and
  `replay` (slash-command bodies replayed into the user slot; the templates on
  disk are read by `replay_files`).
- `identity`: the session's id, client and project, read from its entries.
- `origin`: who started the session, a person or a program.
- `calls`: tool calls as one short line each, and failure excerpts.
- `bounded`: the view with typed turns cut to what anything can read.
- `serialise`: the view as JSON; `compact`: the view as compact bytes.
"""
