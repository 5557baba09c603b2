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
