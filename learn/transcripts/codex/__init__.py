"""Codex CLI rollouts, lowered into the same event model as Claude Code.

- `rollout`: a rollout's lines lowered to `learn.transcripts.models` events.
- `lines`: a line in any era's shape decoded into one wrapped record; the state between lines.
- `meta`: what a rollout says about itself (shared with discovery's head reads).
"""
