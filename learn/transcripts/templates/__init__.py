"""Prompts that are machinery, not a person: judged across sessions.

(One session's replayed slash-command bodies are the view's: `view.replay`.)

- `scripted`: long prompts repeated verbatim across sessions.
- `skeleton`: templates recognised by shape (a recurring skeleton).
"""
