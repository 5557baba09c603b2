"""Session views through the session index (learn.store.session_index).

A layer of its own above detect and render: building an entry runs the
detectors and redacts what is stored, so it cannot sit in learn.transcripts
below them. The pipeline and the commands read it.

- `indexed`: each file's view from the index when unchanged, else parsed.
- `indexed_turns`: a session's human turns as the index stores them.
- `project_turns`: a project's other sessions, for `learn show`.
"""
