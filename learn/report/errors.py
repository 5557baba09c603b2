"""The errors of writing to a person's instruction files, in a leaf: the confinement
check (learn.report.confine), the planning (learn.report.edits) and the writing
(learn.report.apply) all raise them, and none of them imports another for it."""

from __future__ import annotations


class ApplyError(Exception):
    """A file learn will not edit as asked (the message says why and what to do)."""


class ConcurrentEditError(ApplyError):
    """The file changed between showing the diff and writing it."""


class UnsafeMarkError(ApplyError):
    """A key or provenance that is not one learn makes, asked to go into learn's own
    comment in a file (learn.report.edits.learn_comment)."""


class ConfinementError(ApplyError):
    """A destination that is not an instruction surface learn may write."""
