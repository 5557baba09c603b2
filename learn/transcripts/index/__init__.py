"""Session views through the session index (learn.store.session_index).

- `indexed`: each file's view from the index when unchanged, else parsed.
- `indexed_turns`: a session's human turns as the index stores them.
- `project_turns`: a project's other sessions, for `learn show`.
"""
