"""Codex CLI rollouts, lowered into the same event model as Claude Code.

- `rollout`: a rollout's lines to `learn.transcripts.models` events.
- `meta`: what a rollout says about itself (shared with discovery's head reads).
"""
