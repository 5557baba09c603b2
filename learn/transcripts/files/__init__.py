"""Transcript files on disk: where they are, what their heads say, how to read them.

- `discover`: find the session transcripts in scope, newest first, and say what was left out.
- `listing`: the directory walk: session files by name, not yet opened.
- `heads`: a file's head and tail, read from a few KB.
- `compressed`: read zstd-compressed rollouts in memory.
"""
