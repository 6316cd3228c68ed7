"""The claims Part I makes about the source article, recomputed from first principles.

Golden values are either the article's printed numbers (to check where it is right)
or computed here from the paper's formulas with scalar math.
"""

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs import alibi, rope, scaling, sinusoidal
from posenc_docs.attention import self_attention
from posenc_docs.figures import part1 as part1_figures
from posenc_docs.pages import part1
from posenc_docs.sinusoidal import table

fast = settings(max_examples=30, deadline=None)
EXAMPLES = Path(__file__).resolve().parents[1] / "posenc_docs" / "examples" / "part1"


def sinusoid(pos: int, dim: int, d: int) -> float:
    angle = pos / 10000.0 ** (2 * (dim // 2) / d)
    return math.sin(angle) if dim % 2 == 0 else math.cos(angle)


def dot(a: int, b: int, d: int) -> float:
    return sum(sinusoid(a, j, d) * sinusoid(b, j, d) for j in range(d))


@pytest.mark.parametrize(
    "printed, places, value",
    [
        (0.8415, 4, lambda: sinusoid(1, 0, 8)),
        (0.9093, 4, lambda: sinusoid(2, 0, 8)),
        (0.5403, 4, lambda: sinusoid(1, 1, 8)),
        (-0.4161, 4, lambda: sinusoid(2, 1, 8)),
        (3.5353, 4, lambda: dot(7, 8, 8)),
        (3.5353, 4, lambda: dot(30, 31, 8)),
        (2.5637, 4, lambda: dot(7, 9, 8)),
        (2.5637, 4, lambda: dot(30, 32, 8)),
        (4.0, 4, lambda: dot(7, 7, 8)),
        (6283, 0, lambda: 2 * math.pi * 1000),
    ],
)
def test_the_articles_d8_numbers_are_right(printed, places, value):
    assert round(value(), places) == printed


def test_the_slowest_clock_at_d512_is_not_2pi_times_10000():
    longest = sinusoidal.wavelengths(512)[-1]
    assert longest == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert 60_000 < longest < 2 * math.pi * 10000 - 2000  # tens of thousands
    assert sinusoidal.wavelengths(512)[0] == pytest.approx(2 * math.pi)  # "~6"


def test_a_1024_row_table_has_no_row_for_index_1024():
    table = torch.nn.Embedding(1024, 768)
    assert table(torch.tensor([1023])).shape == (1, 768)
    with pytest.raises(IndexError):
        table(torch.tensor([1024]))


def test_alibi_penalty_keeps_growing_linearly():
    slopes = alibi.alibi_slopes(8)
    bias = alibi.alibi_bias(8, 1, 50_001)[:, 0, :]  # query at position 50,000
    np.testing.assert_allclose(bias[:, 50_000 - 512], -slopes * 512)
    np.testing.assert_allclose(bias[:, 0], -slopes * 50_000)
    assert slopes[-1] == 2.0**-8


def test_insertion_diagram_draws_three_marked_insertion_points():
    fig = part1_figures.insertion_points(theme="light")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("insertion\npoint") for t in texts) == 3


def test_insertion_diagram_labels_are_one_size_on_a_phone():
    """The phone variant raised only the labels with subscripts (q = xW_q, m_h) to
    13.6 pt, for their subscripts; the other boxes stayed at 10 pt."""
    import matplotlib.pyplot as plt

    from posenc_docs.figures import draw
    from posenc_docs.figures.spec import PHONE_MIN_FONT, SCRIPT_SHARE

    for phone in (False, True):
        fig = draw("part1-insertion-points", "light", phone)
        labels = [t for t in fig.axes[0].texts if t.get_ha() == "center"]
        sizes = {round(t.get_fontsize(), 2) for t in labels}
        plt.close(fig)
        assert len(labels) == 7
        assert len(sizes) == 1, sizes
    assert sizes == {round(PHONE_MIN_FONT / SCRIPT_SHARE, 2)}


def paper_row(pos: int, d: int, base: float = 10000.0) -> list:
    """PE(pos) from the paper's two formulas with scalar math only."""
    return [
        (math.sin if j % 2 == 0 else math.cos)(pos / base ** (2 * (j // 2) / d))
        for j in range(d)
    ]


def test_toy_embeddings_are_reproducible_and_per_word():
    a = part1.toy_embeddings(["the", "king", "the"], 6, seed=3)
    b = part1.toy_embeddings(["the", "king"], 6, seed=3)
    assert list(a) == ["the", "king"]
    assert all(v.shape == (6,) for v in a.values())
    np.testing.assert_array_equal(a["king"], b["king"])
    assert not np.allclose(a["the"], a["king"])
    with pytest.raises(ValueError, match="d must be"):
        part1.toy_embeddings(["x"], 0)


def test_random_head_shapes_and_scale():
    w_q, w_k, w_v = part1.random_head(400, 30, seed=1)
    assert w_q.shape == w_k.shape == w_v.shape == (400, 30)
    assert np.std(w_q) == pytest.approx(1 / math.sqrt(400), rel=0.05)
    assert not np.allclose(w_q, w_k)


@fast
@given(T=st.integers(2, 7), d=st.sampled_from([4, 8, 16]), seed=st.integers(0, 99))
def test_plain_attention_only_permutes(T, d, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, d))
    perm = rng.permutation(T)
    head = part1.random_head(d, d, seed)
    assert part1.permutation_gap(x, perm, head) < 1e-12
    # the same claim, checked by hand without the helper
    out = self_attention(x, *head)
    np.testing.assert_allclose(self_attention(x[perm], *head), out[perm], atol=1e-12)


@fast
@given(T=st.integers(3, 7), seed=st.integers(0, 99))
def test_positions_or_a_causal_mask_break_the_symmetry(T, seed):
    rng = np.random.default_rng(seed)
    x, d = rng.standard_normal((T, 8)), 8
    perm = np.roll(np.arange(T), 1)  # moves every token
    head = part1.random_head(d, d, seed)
    assert part1.permutation_gap(x, perm, head, added=table(T, d)) > 1e-6
    assert part1.permutation_gap(x, perm, head, causal=True) > 1e-6
    assert part1.permutation_gap(x, np.arange(T), head, causal=True) == 0.0


def test_permutation_gap_rejects_a_non_permutation():
    head = part1.random_head(4, 4)
    with pytest.raises(ValueError, match="perm must be a permutation"):
        part1.permutation_gap(np.ones((3, 4)), [0, 0, 1], head)


def test_word_order_gap_for_the_king_sentences():
    first, second = "the king is here", "here is the king"
    assert part1.word_order_gap(first, second) < 1e-12
    assert part1.word_order_gap(first, second, positions=True) > 0.1
    assert part1.word_order_gap(first, second, causal=True) > 0.1
    with pytest.raises(ValueError, match="reorder"):
        part1.word_order_gap(first, "the king is there")
    with pytest.raises(ValueError, match="reorder"):
        part1.word_order_gap("a a b", "a b a")


@pytest.mark.parametrize("pos, L, d", [(300, 40, 8), (50_000, 64, 16), (20, 64, 16)])
def test_nearest_training_cosine_by_brute_force(pos, L, d):
    row = np.array(paper_row(pos, d))
    best = max(
        row @ np.array(paper_row(p, d)) / (np.linalg.norm(row) * math.sqrt(d / 2))
        for p in range(L)
    )
    assert part1.nearest_training_cosine(pos, L, d) == pytest.approx(best, abs=1e-9)


def test_nearest_training_cosine_is_one_inside_training():
    assert part1.nearest_training_cosine(17, 64, 32) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="train_len"):
        part1.nearest_training_cosine(5, 0, 8)


@pytest.mark.parametrize("bad", [True, "64", 64.0])
def test_lengths_must_be_integers(bad):
    with pytest.raises(TypeError, match=f"train_len must be .*got {bad!r}"):
        part1.phase_gap(10, bad, 8)
    with pytest.raises(TypeError, match=f"train_len must be .*got {bad!r}"):
        part1.nearest_training_cosine(10, bad, 8)
    with pytest.raises(TypeError, match=f"d must be .*got {bad!r}"):
        part1.toy_embeddings(["x"], bad)
    with pytest.raises(ValueError, match="train_len"):
        part1.phase_gap(10, 0, 8)


@fast
@given(pos=st.integers(0, 100_000), L=st.integers(1, 3000), d=st.sampled_from([8, 64]))
def test_phase_gap_matches_the_nearest_seen_angle(pos, L, d):
    """Distance to the nearest sampled angle differs by at most half a step."""
    gap = part1.phase_gap(pos, L, d)
    assert gap.shape == (d // 2,) and np.all((gap >= 0) & (gap <= math.pi + 1e-12))
    for i in range(d // 2):
        omega = 10000.0 ** (-2 * i / d)
        seen = np.mod(np.arange(L) * omega, 2 * math.pi)
        delta = np.abs(np.mod(pos * omega, 2 * math.pi) - seen)
        nearest = np.minimum(delta, 2 * math.pi - delta).min()
        assert abs(gap[i] - nearest) <= omega / 2 + 1e-9


def test_phase_gap_is_zero_inside_training():
    assert not part1.phase_gap(100, 512, 64).any()
    assert part1.phase_gap(50_000, 512, 64).max() > 1


def test_per_dimension_fit_residual():
    assert part1.per_dimension_fit_residual(0, 8) < 1e-9  # identity map fits
    # independent check for d = 2 (one pair, omega = 1): fit sin(p+1) ~ a sin(p) + b
    p = np.arange(200)
    for now, later in [(np.sin(p), np.sin(p + 1)), (np.cos(p), np.cos(p + 1))]:
        coef = np.polyfit(now, later, 1)
        expected = np.abs(np.polyval(coef, now) - later).max()
        assert part1.per_dimension_fit_residual(1, 2) >= expected - 1e-9
    assert part1.per_dimension_fit_residual(1, 2) > 0.5


def test_position_share_formula_and_sample():
    assert part1.position_share(0.0) == 1.0
    assert part1.position_share(1.0) == pytest.approx(1 / 3)
    rng = np.random.default_rng(0)
    d, sigma = 256, 0.7
    pe = table(2000, d)
    e = sigma * rng.standard_normal(pe.shape)
    measured = ((pe**2).sum(1) / ((e + pe) ** 2).sum(1)).mean()
    assert measured == pytest.approx(part1.position_share(sigma), abs=0.02)
    with pytest.raises(ValueError, match="embedding_std"):
        part1.position_share(-1.0)


def test_angle_overshoot():
    d, L, s = 64, 2048, 8
    theta = rope.inv_freq(d)
    plain = part1.angle_overshoot(theta, theta, L, s * L)
    slow = L * theta < 2 * math.pi
    np.testing.assert_allclose(plain[slow], s)  # unchanged frequencies: s times
    np.testing.assert_array_equal(plain[~slow], 1.0)
    pi_scaled = theta / s  # position interpolation by hand
    np.testing.assert_allclose(part1.angle_overshoot(pi_scaled, theta, L, s * L), 1.0)
    ntk = scaling.ntk(d, factor=s)[0]
    assert part1.angle_overshoot(ntk, theta, L, s * L)[-1] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="shapes differ"):
        part1.angle_overshoot(theta[:3], theta, L, L)


# Issue 13, statement 5: the linear-shift property is a fact, by angle addition
# (written out per entry here), whatever a model learns to do with it.
def test_shift_is_linear_by_angle_addition():
    d, k = 8, 3
    shift = sinusoidal.shift_matrix(k, d)
    for pos in (0, 7, 1234):
        expected = []
        for i in range(d // 2):
            w = 10000 ** (-2 * i / d)
            s, c = math.sin(pos * w), math.cos(pos * w)
            expected += [
                math.cos(k * w) * s + math.sin(k * w) * c,
                -math.sin(k * w) * s + math.cos(k * w) * c,
            ]
        shifted = shift @ sinusoidal.encode(pos, d)
        np.testing.assert_allclose(shifted, expected, atol=1e-9)


# Statement 6: the real 8K -> 128K model used the llama3 rule, factor 8 (not the
# 16-fold length ratio), base 5e5 (meta-llama/Llama-3.1-8B config.json) and about
# 800B tokens in 6 stages (Llama 3 Herd paper, section 3.4.2).
def test_llama31_reached_128k_with_llama3_rule_and_long_training():
    from posenc_docs.pages import models, quoted

    l31 = models.get("Llama-3.1-8B")
    params = l31.rope_scaling
    assert (params["rope_type"], params["factor"], l31.rope_theta) == (
        "llama3",
        8.0,
        5e5,
    )
    ratio = l31.max_position_embeddings / params["original_max_position_embeddings"]
    assert ratio == 16 != params["factor"]
    assert quoted.get("llama3_long_context_tokens").value == 800
    assert quoted.get("llama3_long_context_stages").value == 6
    assert "3.4.2" in quoted.cite("llama3_long_context_tokens")


# Statement 7: with a causal mask and no positions, word order changes outputs
# (the signal NoPE models learn from); without the mask it does not.
def test_causal_mask_alone_makes_order_visible():
    first, second = "the king is here", "here is the king"
    assert part1.word_order_gap(first, second, causal=False) < 1e-12
    assert part1.word_order_gap(first, second, causal=True) > 0.1


# Statement 8: RoPE and ALiBi add no vector to the residual stream, but the
# attention output they produce depends on position from layer 1 on.
def test_rope_and_alibi_write_position_into_the_stream():
    rng = np.random.default_rng(0)
    T, d = 6, 8
    x = rng.standard_normal((T, d))
    w_q, w_k, w_v = (rng.standard_normal((d, d)) for _ in range(3))
    perm = np.array([3, 0, 5, 1, 4, 2])
    positions = np.arange(T)

    def rotate(q):
        return rope.apply_rope(q, positions)

    bias = alibi.alibi_bias(1, T, T, causal=False)[0]  # (T, T), -m|i-j|
    plain = self_attention(x, w_q, w_k, w_v)
    np.testing.assert_allclose(self_attention(x[perm], w_q, w_k, w_v), plain[perm])
    for kwargs in ({"rotate": rotate}, {"bias": bias}):
        out = self_attention(x, w_q, w_k, w_v, **kwargs)
        moved = self_attention(x[perm], w_q, w_k, w_v, **kwargs)
        assert np.abs(moved - out[perm]).max() > 1e-3  # depends on the slot


def test_llama3_long_context_schedule_is_labelled_as_the_405b_models():
    """Llama 3 paper section 3.4.2: "In Llama 3 405B pre-training, we increased
    context length gradually in six stages ... approximately 800B training
    tokens." The page must not give it to every size."""
    from posenc_docs.pages import quoted

    for name in ("llama3_long_context_tokens", "llama3_long_context_stages"):
        assert "405B" in quoted.get(name).what
    page = Path(__file__).resolve().parents[1] / "docs/part1/failure-modes.md"
    text = page.read_text()
    assert "For the 405B model the paper reports" in text


def test_two_positions_alt_text_follows_where_the_rows_differ():
    """Figure 2's alt: PE(20) and PE(70) nearly agree in the first four dimensions
    (50 positions are 7.96 turns of pair 0), differ widely over the next two dozen
    or so, and agree on the right."""
    spec = next(s for s in part1_figures.FIGURES if s.slug == "part1-two-positions")
    rows = table(128, spec.params["d"])
    gap = np.abs(rows[spec.params["a"]] - rows[spec.params["b"]])  # (d,)
    assert "nearly agree in the first four" in spec.alt
    assert gap[:4].max() < 0.25 and gap[4:30].max() > 1.9
    assert np.count_nonzero(gap[4:30] > 0.5) >= 12 and gap[40:].max() < 0.2


def test_offset_curves_alt_text_follows_the_curve():
    """Figure 3's alt: 32 at k = 0, about 21 by k = 10, then a downward drift with
    ripples whose dips reach about 11 at k = 96 and 116 (it said "wobbling between
    about 11 and 20", a flat band, then "to about 11 near k = 100", where the curve
    is near a crest, 17.9). The sum of cos(k w_i) over pairs, by a scalar loop."""
    spec = next(s for s in part1_figures.FIGURES if s.slug == "part1-offset-curves")
    d = spec.params["d"]

    def similarity(k):
        return sum(math.cos(k / 10000 ** (2 * i / d)) for i in range(d // 2))

    curve = [similarity(k) for k in range(spec.params["max_offset"] + 1)]
    assert "32 at k = 0, about 21 by k = 10" in spec.alt
    assert "its dips reaching about 11 at k = 96 and 116" in spec.alt
    assert round(curve[0]) == 32 and round(curve[10]) == 21
    inner = range(1, len(curve) - 1)
    dips = [k for k in inner if curve[k] < min(curve[k - 1], curve[k + 1])]
    assert [k for k in dips if round(curve[k]) == 11] == [96, 116]
    assert min(curve) == curve[96] and curve[100] > 17  # k = 100: near a crest
    assert max(curve[20:]) < 20.5 and max(curve[60:]) < 19  # drifts down
    assert min(curve[:50]) > 14  # not yet near 11


def test_add_position_prints_embedding_plus_position_entry_by_entry(capsys):
    """The injection page reads its table: one embedding column, each input column
    the embedding plus PE(1) or PE(3), and the two inputs far apart in the first
    two rows (the fastest pair) but not in the last two."""
    import runpy

    runpy.run_path(str(EXAMPLES / "add_position.py"), run_name="__main__")
    rows = capsys.readouterr().out.splitlines()[3:]
    table = np.array([[float(v) for v in row.split()[1:]] for row in rows])  # (8, 5)
    embedding, pe1, input1, pe3, input3 = table.T
    np.testing.assert_allclose(pe1, sinusoidal.encode(1, 8), atol=5e-4)
    np.testing.assert_allclose(pe3, sinusoidal.encode(3, 8), atol=5e-4)
    np.testing.assert_allclose(input1, embedding + pe1, atol=1.5e-3)
    np.testing.assert_allclose(input3, embedding + pe3, atol=1.5e-3)
    gap = np.abs(input3 - input1)
    assert gap[:2].min() > 0.5 and gap[-2:].max() < 0.01


@given(st.integers(1, 100_000), st.floats(0.0, 1.0))
def test_a_pair_turning_slower_than_the_ramp_wavelength_covers_under_a_quarter_turn(
    train_len, fraction
):
    """clocks.md: a pair whose turn takes more than `ramp_wavelength(L)` positions
    covers less than a quarter turn in L positions, and one faster than it more."""
    ramp = part1.ramp_wavelength(train_len)
    slower, faster = ramp * (1 + fraction) + 1, ramp * (1 - fraction / 2) - 1e-9
    assert train_len / slower < 0.25 < train_len / faster
