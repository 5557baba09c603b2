"""Prompts that are machinery, not a person: judged across sessions.

- `replay`: slash-command bodies replayed into the user slot.
- `scripted`: long prompts repeated verbatim across sessions.
- `skeleton`: templates recognised by shape (a recurring skeleton).
"""
