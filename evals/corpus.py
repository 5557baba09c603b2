"""One labelled corpus through the real pipeline in an isolated home, measured:
the CorpusReport every eval (the gate, the noisy model's faults, the outcomes
scenario) is built from. evals/run.py is the command line over it."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from msgspec import structs

from evals import metrics, windows
from evals.corpora import ALL_CORPORA
from evals.gold import Gold

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / "cache"
BASELINE = REPO / "evals" / "baseline.json"
# Items per naming call under the noisy model: a real window has hundreds of
# candidates and so many naming calls, and a group's quotes land in several of
# them. Two items a call gives these small corpora the same: groups split over
# calls, which is where label drift between calls happens (with 4, no group
# was split and the drift fault never fired).
NOISY_NAME_BATCH = 2


@dataclass
class CorpusReport:
    corpus: str
    metrics: dict[str, float] = field(default_factory=dict)
    cost: dict[str, Any] = field(default_factory=dict)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    proposals: list[dict[str, Any]] = field(default_factory=list)
    audit: dict[str, Any] = field(default_factory=dict)
    injected: dict[str, int] = field(default_factory=dict)  # noisy faults that fired
    stale_prompts: dict[str, str] = field(default_factory=dict)  # step -> "recorded vs current"
    # tool -> replayed calls with no recording (replay mode only): a changed
    # request, not a quality drop, although the metrics it moves look like one.
    replay_misses: dict[str, int] = field(default_factory=dict)
    # language -> its groups' metrics, for a corpus whose gold names languages.
    languages: dict[str, dict[str, float]] = field(default_factory=dict)


@contextlib.contextmanager
def isolated_home(root: Path) -> Iterator[Path]:
    """Point HOME and learn's directories into `root` for the duration."""
    keys = ("HOME", "LEARN_DATA_DIR", "LEARN_CACHE_DIR", "LEARN_CONFIG_DIR",
            "CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")
    saved = {k: os.environ.get(k) for k in keys}
    try:
        for k in keys:
            os.environ.pop(k, None)
        os.environ["HOME"] = str(root / "home")
        os.environ["LEARN_DATA_DIR"] = str(root / "data")
        os.environ["LEARN_CACHE_DIR"] = str(root / "cache")
        os.environ["LEARN_CONFIG_DIR"] = str(root / "config")
        yield root
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class MissCounting:
    """A replay backend that counts, per tool, the calls with no recording."""

    name = "replay"

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.misses: Counter[str] = Counter()

    @property
    def stale_prompts(self) -> dict[str, str]:
        return dict(self.inner.stale_prompts)

    def call(self, request: Any) -> Any:
        from learn.models.base import ReplayMissError

        try:
            return self.inner.call(request)
        except ReplayMissError:
            self.misses[request.tool.name] += 1
            raise


def build_live_backend(name: str, model: str | None = None, config: Any = None) -> Any:
    """The backend a `--live` run asks, built once, before any corpus's isolated home:
    as `learn run` builds it from the person's config (`config`, default: loaded now),
    checked once (learn.commands.run.build_backend: a missing key, `claude` or server
    raises its click error). `model` (`--model`) is the model of every step, an openai
    server's included.

    Built inside the corpus's home, the config read was the corpus's empty one: the
    pre-check asked the person's server on :18931, then every corpus asked the default
    :8080 and stopped at the first ("nothing answers ... point [backend]
    openai_base_url at it", which they had). A claude-cli backend's `claude` starts
    from the person's environment for the same reason: with the corpus's HOME and
    CLAUDE_CONFIG_DIR it had no login."""
    from learn.commands.run import build_backend
    from learn.config import load_config
    from learn.models.claude_cli import ClaudeCliBackend

    config = config if config is not None else load_config()
    if model:
        config = structs.replace(config, models=structs.replace(
            config.models, mine=model, name=model, coverage=model, judge=model))
    backend = build_backend(name, record=False, cache_dir=None, config=config)
    if isinstance(backend, ClaudeCliBackend):
        backend.env = dict(os.environ)
    return backend


def make_backend(kind: str, gold: Gold, *, live: Any = None, cache_dir: Path,
                 faults: Sequence[str] = (), seed: int = 0) -> Any:
    from learn.models.replay import RecordingBackend, ReplayBackend

    if kind == "replay":
        return MissCounting(ReplayBackend(cache_dir))
    if kind == "oracle":
        from evals.oracle import GoldOracle

        return RecordingBackend(GoldOracle(gold), cache_dir, overwrite=True)
    if kind == "noisy":
        # Never recorded: its answers are generated, seeded, on every run.
        from evals.noisy import NoisyModel

        return NoisyModel(gold, faults, seed=seed)
    assert live is not None  # `build_live_backend`'s
    # Every call asked: `--live` means a real model, and filling only the misses
    # answered every call from the bundled recordings, a PASS with no model at all.
    return RecordingBackend(live, cache_dir, overwrite=True)


def run_corpus(name: str, *, mode: str = "replay", live_backend: str | None = None,
               live: Any = None, model: str | None = None, cache_dir: Path = CACHE,
               audit_seed: int = 0, faults: Sequence[str] = (), seed: int = 0,
               name_batch: int | None = None) -> CorpusReport:
    """`mode` "live" asks `live` (`build_live_backend`'s, built once for every corpus),
    else the backend named `live_backend`, built here before the corpus's home is entered."""
    from learn.config import load_config
    from learn.pipeline import RunOptions, run_pipeline

    if mode == "live" and live is None:
        assert live_backend is not None
        live = build_live_backend(live_backend, model)
    build = ALL_CORPORA[name]
    report = CorpusReport(corpus=name)
    with tempfile.TemporaryDirectory(prefix=f"learn-eval-{name}-") as tmp:
        root = Path(tmp)
        gold = build(root / "corpus")
        with isolated_home(root / "corpus"):
            config = load_config()
            if model:
                config = structs.replace(config, models=structs.replace(
                    config.models, mine=model, name=model, coverage=model, judge=model))
            # The run shows at most `max_per_kind` proposals a kind; a corpus that
            # expects more (the multilingual one: 16 directives) is measured on
            # all of them, not on which 8 the ranking put first.
            wanted = max(Counter(g.kind for g in gold.groups.values() if g.proposed).values(), default=0)
            if wanted > config.thresholds.max_per_kind:
                config = structs.replace(config, thresholds=structs.replace(
                    config.thresholds, max_per_kind=wanted))
            batch = name_batch or (NOISY_NAME_BATCH if mode == "noisy" else None)
            if batch is not None:
                config = structs.replace(config, models=structs.replace(config.models, name_batch=batch))
            backend = make_backend(mode, gold, live=live, cache_dir=cache_dir, faults=faults,
                                   seed=seed)
            options = RunOptions(all_projects=True, since=None, show_all=True)
            started = time.perf_counter()
            result, trace = run_pipeline(options, config, backend=backend)
            wall = time.perf_counter() - started
            written = [p.read_text(encoding="utf-8", errors="replace")
                       for kind in ("data", "cache") for p in _files_under(root / "corpus" / kind)]
        data = result.to_json()
        verified = [metrics.Occurrence(o.session, o.kind, o.text, o.label, o.command)
                    for o in trace.labelled]
        dropped = [metrics.Occurrence(o.session, o.kind, o.text, "", o.command)
                   for o in trace.dropped]
        m: dict[str, float] = {}
        m.update(metrics.mining_metrics(gold, verified, dropped))
        m.update(metrics.naming_metrics(gold, verified))
        m.update(metrics.proposal_metrics(gold, data["proposals"], written))
        m.update(metrics.agreement_metrics(gold, data["proposals"]))
        m.update(metrics.command_metrics(gold, data["proposals"]))
        replies = windows.negative_replies(windows.transcript_files(root / "corpus" / "home"), gold)
        m["windows.negatives"] = float(len(replies))
        m["windows.reported_share"] = windows.reported_share(replies, verified)
        report.metrics = m
        report.languages = metrics.language_metrics(gold, verified, data["proposals"])
        report.cost = dict(data["usage"])
        report.stage_seconds = {**{k: round(v, 3) for k, v in trace.stage_seconds.items()},
                                "total": round(wall, 3)}
        report.proposals = data["proposals"]
        report.audit = audit(data["proposals"], gold, seed=audit_seed)
        report.injected = dict(getattr(backend, "injected", {}))
        report.stale_prompts = dict(getattr(backend, "stale_prompts", {}))
        report.replay_misses = dict(getattr(backend, "misses", {}))
    return report


def _files_under(root: Path) -> list[Path]:
    if not root.exists():
        return []
    out = []
    for p in root.rglob("*"):
        if p.is_file() and p.suffix in {".json", ".md", ".html", ".txt", ".jsonl", ".db", ""}:
            out.append(p)
    return out


def audit(proposals: Sequence[dict[str, Any]], gold: Gold, *, seed: int, per_side: int = 10) -> dict[str, Any]:
    """A seeded sample of accepted and rejected verdicts, each checked against gold,
    with one-sided Clopper-Pearson bounds on the judge's precision."""
    import random

    rng = random.Random(f"audit:{seed}")
    accepts = [p for p in proposals if p.get("verdict") and p["verdict"]["accepted"]]
    rejects = [p for p in proposals if p.get("verdict") and not p["verdict"]["accepted"]]
    sample_a = rng.sample(accepts, min(per_side, len(accepts)))
    sample_r = rng.sample(rejects, min(per_side, len(rejects)))

    def correct(p: dict[str, Any], accepted: bool) -> bool:
        g = gold.groups.get(p["label"])
        return g is not None and g.accepted == accepted and g.proposed

    good_a = sum(1 for p in sample_a if correct(p, True))
    good_r = sum(1 for p in sample_r if not correct(p, True))
    return {
        "accepts_sampled": len(sample_a),
        "accepts_correct": good_a,
        "precision_lower_95": round(metrics.clopper_pearson_lower(good_a, len(sample_a)), 4),
        "rejects_sampled": len(sample_r),
        "rejects_correct": good_r,
    }
