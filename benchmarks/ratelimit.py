"""Adaptive rate limits: mining uncached sessions against the fake server enforcing an account.

    .venv/bin/python benchmarks/ratelimit.py [--sessions 300] [--baseline-sessions 30] [--low-sessions 60]

Real SDK, real sockets, real clock: `mine_sessions` (4 workers, as `learn run`)
over generated sessions, one mining call each, against tests/fakes' Anthropic
server enforcing and advertising the limits (429 when exceeded). The model is
an oracle: it quotes what the user typed, so every candidate verifies.

1. baseline, measured in this run: the old fixed 50 requests/minute limiter
   against a 4,000/minute account. At 50/minute, 300 sessions take six
   minutes, so the baseline mines --baseline-sessions and its time for the
   full count is projected from its measured rate (printed as such).
2. adaptive: the same account, the limiter set from the headers.
3. a 50/minute account (--low-sessions, default 60: 50 at once, then the
   refill rate) with the adaptive limiter: the 429 count must be 0.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fakes.anthropic_server import FakeAnthropicServer  # noqa: E402
from fakes.http_server import RecordedRequest  # noqa: E402
from fakes.ratelimits import FakeAccountLimits  # noqa: E402

from learn.mining.miner import mine_sessions  # noqa: E402
from learn.models.anthropic_backend import AnthropicBackend  # noqa: E402
from learn.models.ratelimit import RateLimiter  # noqa: E402
from learn.models.retry import RetryPolicy  # noqa: E402
from learn.transcripts.view.model import HumanTurn, Session  # noqa: E402

MODEL = "claude-haiku-4-5"
_ASKS = ("use bun, not npm", "run the tests before you commit", "no emojis in commit messages",
         "keep functions under forty lines", "never push to main")


def sessions(n: int) -> list[Session]:
    out = []
    for k in range(n):
        turns = tuple(
            HumanTurn(text=f"session {k}: please {_ASKS[(k + j) % len(_ASKS)]}", origin="typed",
                      at=None, event_index=j)
            for j in range(3)
        )
        out.append(Session(id=f"s{k:04d}", provider="claude", path=None, project="/proj",
                           started_at=None, last_activity=None, timeline=turns, human_turns=turns,
                           tool_calls=(), failures=(), denials=(), interrupts=(), turns=len(turns)))
    return out


def oracle(request: RecordedRequest) -> dict[str, object]:
    """Quotes the first request the user made in the chunk, which verification will find."""
    for ask in _ASKS:
        if ask in request.user_text:
            return {"candidates": [{"kind": "directive", "text": ask}]}
    return {"candidates": []}


def mine(n: int, limits: FakeAccountLimits, limiter: RateLimiter) -> tuple[float, int, int]:
    """(seconds, sessions mined with a verified candidate, 429s the server answered)."""
    with FakeAnthropicServer(responder=oracle, limits=limits) as fake:
        backend = AnthropicBackend(api_key="bench", base_url=fake.base_url, limiter=limiter,
                                   retry=RetryPolicy(max_attempts=8))
        start = time.monotonic()
        results = mine_sessions(sessions(n), backend, model=MODEL, concurrency=4)
        elapsed = time.monotonic() - start
    mined = sum(1 for r in results if r.complete and r.candidates)
    return elapsed, mined, limits.rejected


def _option(args: list[str], name: str, default: int) -> int:
    return int(args[args.index(name) + 1]) if name in args else default


def main(argv: list[str]) -> int:
    n = _option(argv, "--sessions", 300)
    n_base = _option(argv, "--baseline-sessions", 30)
    n_low = _option(argv, "--low-sessions", 60)

    def high() -> FakeAccountLimits:
        return FakeAccountLimits(requests=4000, input_tokens=2_000_000, output_tokens=400_000)

    base_s, base_mined, base_429 = mine(n_base, high(), RateLimiter(50, 4))
    projected = base_s * n / n_base
    print(f"4,000/min account, fixed 50/min limiter (baseline): {n_base} sessions in {base_s:6.1f} s "
          f"({base_mined} mined, {base_429} x 429); projected for {n}: {projected:6.1f} s")
    ad_s, ad_mined, ad_429 = mine(n, high(), RateLimiter(adaptive=True))
    print(f"4,000/min account, adaptive limiter:                {n} sessions in {ad_s:6.1f} s "
          f"({ad_mined} mined, {ad_429} x 429); {projected / ad_s:5.1f}x faster than the baseline")
    low_s, low_mined, low_429 = mine(n_low, FakeAccountLimits(requests=50), RateLimiter(adaptive=True))
    floor = max(0.0, (n_low - 50) * 60 / 50)
    print(f"50/min account, adaptive limiter:                   {n_low} sessions in {low_s:6.1f} s "
          f"({low_mined} mined, {low_429} x 429); the server allows no less than {floor:.1f} s")
    ok = ad_mined == n and ad_429 == 0 and low_429 == 0 and low_mined == n_low and ad_s < 60
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
