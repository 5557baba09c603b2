"""Every fidelity case: the view shows exactly what the person typed, and no machine text.

The cases live in tests/fixtures/fidelity/cases (see its README); each is a structure found
on real disks. The view is read through `learn show --json`, the way a user checks it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.fidelity import corpus


@pytest.mark.parametrize("case", corpus.cases())
def test_the_view_shows_what_was_typed_and_nothing_else(case: str, tmp_path: Path) -> None:
    for exp, view in corpus.shown(case, tmp_path):
        assert view["id"] == exp.id, exp.file
        turns = corpus.typed_turns(view)
        assert turns == list(exp.typed), exp.file
        for machine in exp.not_typed:
            leaked = [t for t in turns if machine in t]
            assert not leaked, f"{exp.file}: machine text {machine!r} shown as typed"
        if exp.origin is not None:
            assert view["origin"] == exp.origin, (exp.file, view["origin_evidence"])
            assert view["origin_evidence"], exp.file
    # One count: the listing says what the view (and a run) will mine, and every id it
    # prints is one `learn show` accepts (checked in `corpus.shown`).
    rows = corpus.listed_by_path(case, tmp_path)
    for exp in corpus.expected(case):
        row = rows.get(exp.file)
        if row is None:  # not a session of its own (a subagent rollout): nothing is mined
            assert not exp.typed, exp.file
            continue
        assert row["id"] == exp.id, exp.file
        assert row["human_turns"] == len(exp.typed), exp.file
        if exp.origin is not None:
            assert row["origin"] == exp.origin, (exp.file, row["origin_evidence"])
