"""Prompts that are machinery, not a person: judged across sessions.

(One session's replayed slash-command bodies are the view's: `view.replay`.)

- `scripted`: the entry points (`machinery`, `judged_sessions`, `learn show`'s
  `without_project_prompts`).
- `repeated`: long prompts repeated verbatim across sessions.
- `skeleton`: templates recognised by shape (a recurring skeleton).
- `corpus`: the pass judging sessions together, linear in the work, through
  `keys` (each text's digests), `entries` (each session's keys as sets, as the
  session index stores them) and `quoted` (an index of words).
"""
