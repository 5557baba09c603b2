"""Which pending proposals a fallback named, and the model's name for each now.

A run whose naming failed groups near-identical quotes under a fallback label
(learn.reduce.fallback) and, once judged, they are pending under that label.
The next run with naming working names the same quotes properly: the point is
then pending twice (the fallback key and the model's), or held back "shown
before" under the old name. A pending proposal whose label no model gave is
renamed to the key of this run's proposal that holds most of its quotes (the
same session, the same words); one whose quotes this run did not group stays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from learn.records.proposal import Proposal
from learn.textfold import fold


def fallback_renames(
    pending: Iterable[tuple[str, Proposal]],
    proposals: Sequence[Proposal],
    *,
    model_made: Callable[[str, str], bool],
) -> list[tuple[str, str, str]]:
    """(project, old key, new key) for each pending (project, proposal) a fallback named
    whose quotes this run's model-named `proposals` hold. `model_made(kind, label)`
    says whether a model gave that label."""
    holder: dict[tuple[str, str, str], str] = {}
    for p in proposals:
        if not model_made(p.kind, p.label):
            continue
        for q in p.quotes:
            holder.setdefault((p.kind, q.session_id, fold(q.text)), p.key)
    out: list[tuple[str, str, str]] = []
    for project, old in pending:
        if model_made(old.kind, old.label):
            continue
        votes = Counter(key for q in old.quotes
                        if (key := holder.get((old.kind, q.session_id, fold(q.text)))))
        if votes:
            new, _ = votes.most_common(1)[0]
            if new != old.key:
                out.append((project, old.key, new))
    return out
