"""Tests for posenc_docs.pages.part2_extension, against loop-based re-derivations.

References are written from the definitions (RoFormer wavelengths, PI eq. 7-8,
Meta's llama3 rule) with plain Python loops; they never call the package.
"""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs.pages import models, part2_extension


def ref_wavelengths(d, base):
    return [2 * math.pi * base ** (2 * i / d) for i in range(d // 2)]


@pytest.mark.parametrize(
    ("d", "base", "length", "full"),
    [(128, 1e4, 4096, 46), (128, 5e5, 8192, 35)],  # Llama 2 7B, Llama 3 8B
)
def test_turn_census_of_llama(d, base, length, full):
    wavelengths = ref_wavelengths(d, base)
    expected = sum(w < length for w in wavelengths)
    census = part2_extension.turn_census(d, base, length)
    assert census.full_turn == expected == full
    assert census.boundary_wavelength == pytest.approx(wavelengths[full])
    assert census.last_full_wavelength == pytest.approx(wavelengths[full - 1])
    assert census.slowest_fraction == pytest.approx(length / wavelengths[-1])


@settings(max_examples=60, deadline=None)
@given(
    d=st.integers(2, 64).map(lambda k: 2 * k),
    base=st.floats(10.0, 1e6),
    length=st.floats(7.0, 1e4),
)
def test_turn_census_splits_pairs_at_the_length(d, base, length):
    wavelengths = ref_wavelengths(d, base)
    if wavelengths[-1] < length:
        with pytest.raises(ValueError, match="length"):
            part2_extension.turn_census(d, base, length)
        return
    census = part2_extension.turn_census(d, base, length)
    k = census.full_turn
    assert all(w < length for w in wavelengths[:k])
    assert all(w >= length for w in wavelengths[k:])
    assert census.boundary_pair == k and census.n_pairs == d // 2


def test_turn_census_refuses_bad_length():
    with pytest.raises(ValueError, match="length"):
        part2_extension.turn_census(64, 1e4, 0)


def test_pi_bound_constant_is_the_papers():
    assert part2_extension.pi_bound_constant(1e4) == pytest.approx(294.73, abs=0.005)


def ref_extrapolation_sum(s, d, base):
    theta = [base ** (-2 * j / d) for j in range(d // 2)]
    total = 0.0
    for k in range(d // 2):
        a = sum(complex(math.cos(s * t), math.sin(s * t)) for t in theta[: k + 1])
        total += abs(a)
    return total


@pytest.mark.parametrize("s", [0.0, 1.0, 37.5, 1000.0, 8142.0])
def test_bound_ratio_matches_the_definition(s):
    d, base = 32, 1e4
    ratio = part2_extension.bound_ratio(s, d, base)
    assert ratio == pytest.approx(
        64 * math.log(base) * ref_extrapolation_sum(s, d, base) / d, rel=1e-10
    )


def test_offsets_below_the_claim_are_those_where_b_is_below_d():
    d, base, top = 128, 1e4, 8192  # the page's: B(s) >= d gives PI's "600x"
    theta = base ** (-2 * np.arange(d // 2) / d)
    s = np.arange(1, top + 1)[:, None]
    b = np.abs(np.cumsum(np.exp(1j * s * theta), axis=1)).sum(axis=1)
    below = part2_extension.offsets_below_claim(top, d, base)
    assert below.tolist() == (np.flatnonzero(b < d) + 1).tolist()
    first = int(below[0])  # the page: "true for every offset up to first - 1"
    assert ref_extrapolation_sum(first, d, base) < d
    assert all(ref_extrapolation_sum(s, d, base) >= d for s in range(first - 20, first))


def test_bound_ratio_at_zero_counts_every_term():
    d = 128  # |A_k(0)| = k, so B(0) = 1 + 2 + ... + d/2
    expected = 64 * math.log(1e4) * (64 * 65 / 2) / d
    assert part2_extension.bound_ratio(0.0, d) == pytest.approx(expected)
    assert part2_extension.paper_bound_ratio() == pytest.approx(64 * math.log(1e4))


def ref_llama3_factor(wavelength, L0, factor, low, high):
    if wavelength < L0 / high:
        return 1.0
    if wavelength > L0 / low:
        return factor
    smooth = (L0 / wavelength - low) / (high - low)
    return 1.0 / ((1 - smooth) / factor + smooth)


def test_llama31_per_pair_factors_follow_metas_rule():
    model = models.get("Llama-3.1-8B")
    expected = [
        ref_llama3_factor(w, 8192, 8.0, 1.0, 4.0) for w in ref_wavelengths(128, 5e5)
    ]
    factors = part2_extension.model_scale_factors(model)
    np.testing.assert_allclose(factors, expected, rtol=1e-12)
    kept, between, divided, outside = part2_extension.band_counts(factors, 8.0)
    assert kept == sum(e == 1.0 for e in expected)
    assert divided == sum(e == 8.0 for e in expected)
    assert (between, outside) == (64 - kept - divided, 0)


def test_longropes_searched_factors_beyond_s_are_not_counted_in_between():
    """Phi-3-mini-128k's long factors run past s = 32 (to 64.76): those pairs are
    stretched more than PI would, not blended."""
    model = models.get("Phi-3-mini-128k-instruct")
    factors = part2_extension.model_scale_factors(model, seq_len=131072)
    long_list = np.asarray(model.rope_scaling["long_factor"])
    counts = part2_extension.band_counts(factors, 32.0)
    assert counts == (0, int(np.sum(long_list < 32)), 0, int(np.sum(long_list > 32)))
    assert counts[3] > 0


def test_linear_scaling_slows_every_pair_equally():
    factors = part2_extension.model_scale_factors(models.get("Vicuna-7B-v1.5-16k"))
    np.testing.assert_allclose(factors, 4.0)
    assert part2_extension.band_counts(factors, 4.0) == (0, 0, 64, 0)


def test_unscaled_model_has_plain_frequencies():
    inv_freq, attention = part2_extension.model_inv_freq(models.get("Llama-2-7B"))
    expected = [1e4 ** (-2 * i / 128) for i in range(64)]
    np.testing.assert_allclose(inv_freq, expected, rtol=1e-12)
    assert attention == 1.0


def test_model_inv_freq_refuses_non_rope_models():
    with pytest.raises(ValueError, match="not rope"):
        part2_extension.model_inv_freq(models.get("MPT-7B"))


def test_context_ceiling_of_unscaled_and_tableless_models():
    llama2 = part2_extension.context_ceiling(models.get("Llama-2-7B"))
    assert (llama2.tokens, llama2.product, llama2.factor) == (4096, None, None)
    t5 = part2_extension.context_ceiling(models.get("T5 v1.1 base"))
    assert t5.tokens is None and t5.rule == "no configured limit"


def test_position_parameters():
    assert part2_extension.position_parameters(models.get("GPT-2 (124M)")) == 1024 * 768
    assert part2_extension.position_parameters(models.get("BERT-base")) == 512 * 768
    assert (
        part2_extension.position_parameters(models.get("T5 v1.1 base")) == 2 * 32 * 12
    )
    for name in ("Llama-2-7B", "MPT-7B", "Transformer (base)"):
        assert part2_extension.position_parameters(models.get(name)) == 0


def test_position_ops_per_token():
    llama2, mpt = models.get("Llama-2-7B"), models.get("MPT-7B")
    assert part2_extension.position_ops_per_token(llama2, 4096) == 3 * (32 + 32) * 128
    llama3 = models.get("Llama-3-8B")  # 8 kv heads: fewer keys to rotate
    assert part2_extension.position_ops_per_token(llama3, 8192) == 3 * (32 + 8) * 128
    assert part2_extension.position_ops_per_token(mpt, 2048) == 32 * 2048
    gpt2 = models.get("GPT-2 (124M)")
    assert part2_extension.position_ops_per_token(gpt2, 1024) == 768
    # ALiBi's share of QK^T is 1 / (2 head_dim), whatever the length
    for length in (128, 2048):
        ratio = part2_extension.position_ops_per_token(
            mpt, length
        ) / part2_extension.score_ops_per_token(mpt, length)
        assert ratio == pytest.approx(1 / 256)


def test_tokens_for_words():
    assert part2_extension.tokens_for_words(90_000, 0.75) == pytest.approx(120_000)
    with pytest.raises(ValueError, match="words_per_token"):
        part2_extension.tokens_for_words(100, 0)
    with pytest.raises(TypeError, match="words"):
        part2_extension.tokens_for_words("many")


# Issue 13, statement 1: the census of extended configs counts dynamic NTK and
# base raising. Golden values: Qwen/Qwen-7B config.json (use_dynamic_ntk true,
# use_logn_attn true); Code Llama paper section 2.4 (rope_theta 10^4 -> 10^6).
def test_extension_census_counts_flags_and_raised_bases():
    qwen = models.get("Qwen-7B")
    assert qwen.extra["use_dynamic_ntk"] is True and qwen.extra["use_logn_attn"]
    assert qwen.rope_scaling is None  # the reason "scaling: none" was wrong
    assert part2_extension.extension_method(qwen) == "dynamic NTK (own code)"
    code_llama = models.get("CodeLlama-7B")
    assert (code_llama.rope_theta, code_llama.extra["base_model_rope_theta"]) == (
        1e6,
        1e4,
    )
    assert part2_extension.extension_method(code_llama) == "base raised"
    assert part2_extension.extension_method(models.get("Llama-2-7B")) is None
    census = part2_extension.extension_census(models.MODELS.values())
    assert {k: len(v) for k, v in census.items()} == {
        "linear": 1,
        "base raised": 1,
        "dynamic NTK (own code)": 1,
        "llama3": 2,
        "yarn": 2,
        "longrope": 1,
    }


# Statement 2: a configured ceiling is not the trained length (Mistral 7B paper,
# arXiv:2310.06825, Table 1: context_len 8192; config: max_position_embeddings).
def test_configured_ceiling_differs_from_trained_length():
    mistral = models.get("Mistral-7B-v0.1")
    assert (mistral.max_position_embeddings, mistral.trained_length) == (32768, 8192)
    assert "Table 1" in mistral.trained_length_source
    for model in models.MODELS.values():
        assert (model.trained_length is None) == (not model.trained_length_source)


# Statement 3: a bias of -8 divides a weight by e^8, which MPT's steepest head
# (slope 2^(-8/32), ALiBi paper's geometric sequence) reaches about 10 tokens back.
def test_alibi_discount_of_the_gentlest_head_at_the_window_end():
    scores = [0.0, -8.0]  # equal content, one key biased by -8
    weights = [math.exp(s) / sum(math.exp(t) for t in scores) for s in scores]
    assert part2_extension.weight_discount(8) == pytest.approx(weights[0] / weights[1])
    assert part2_extension.weight_discount(8) == pytest.approx(2980.958, abs=1e-3)
    mpt = models.get("MPT-7B")
    gentlest = 2 ** (-8 * mpt.num_heads / mpt.num_heads)
    assert gentlest * mpt.max_position_embeddings == 8.0
    steepest = 2 ** (-8 / mpt.num_heads)
    distance = part2_extension.distance_for_bias(steepest, 8)
    assert 9 < distance < 10  # "about 10 tokens back"
    assert part2_extension.distance_for_bias(2**-1, 8) == 16  # 8 heads: slope 1/2
    with pytest.raises(ValueError, match="slope"):
        part2_extension.distance_for_bias(0.0, 8)


def ref_yarn_hf_weight(i, d, base, L0, beta_fast, beta_slow):
    def pair_turning(r):  # pair index that turns r times within L0
        return d * math.log(L0 / (r * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(pair_turning(beta_fast)), 0)
    high = min(math.ceil(pair_turning(beta_slow)), d - 1)
    ramp = min(max((i - low) / (high - low), 0.0), 1.0)
    return 1.0 - ramp  # weight on the original theta


# Statement 4: Llama 3.1's ramp and YaRN's gamma(r) are linear in r = L0/lambda;
# HF's yarn is linear in the pair index. References: Meta's rule (above), the
# YaRN paper's gamma(r) with alpha=1, beta=32, HF's find_correction_range.
def test_three_ramps_at_llama31_settings():
    d, base, L0, s = 128, 5e5, 8192, 8.0
    ramps = part2_extension.ramp_comparison(models.get("Llama-3.1-8B"))
    turns = [L0 / w for w in ref_wavelengths(d, base)]
    np.testing.assert_allclose(ramps["turns"], turns, rtol=1e-12)
    llama3 = [(1 / ref_llama3_factor(L0 / r, L0, s, 1, 4) - 1 / s) / (1 - 1 / s)
              for r in turns]  # fmt: skip
    gamma = [min(max((r - 1) / 31, 0.0), 1.0) for r in turns]
    hf = [ref_yarn_hf_weight(i, d, base, L0, 32, 1) for i in range(d // 2)]
    np.testing.assert_allclose(ramps["llama3"], llama3, atol=1e-12)
    np.testing.assert_allclose(ramps["yarn_paper"], gamma, atol=1e-12)
    np.testing.assert_allclose(ramps["yarn_hf"], hf, atol=1e-12)
    blend = [i for i, w in enumerate(llama3) if 0 < w < 1]
    assert all(1 < turns[i] < 4 for i in blend)  # Llama 3.1's band: 1-4 turns
    steps = np.diff([hf[i] for i in range(19, 35)])
    np.testing.assert_allclose(steps, steps[0])  # HF: linear in i (log r)
    table = part2_extension.ramp_table(models.get("Llama-3.1-8B"))
    assert table.count("\n") == 2 + 35 - 18


# Statement 10: current encoders do not use a learned table. Golden: Hugging
# Face's ModernBertConfig and NomicBertConfig defaults (documented checkpoints
# answerdotai/ModernBERT-base and nomic-ai/nomic-embed-text-v1.5).
def test_current_encoders_use_rope_not_a_learned_table():
    from transformers import ModernBertConfig, NomicBertConfig

    modern, nomic = models.get("ModernBERT-base"), models.get("nomic-embed-text-v1.5")
    hf_modern, hf_nomic = ModernBertConfig(), NomicBertConfig()
    assert modern.scheme == nomic.scheme == "rope"
    assert part2_extension.position_parameters(modern) == 0
    assert modern.max_position_embeddings == hf_modern.max_position_embeddings
    assert modern.hidden_size == hf_modern.hidden_size
    assert modern.rope_theta == ModernBertConfig.default_theta["global"]
    assert modern.extra["local_rope_theta"] == ModernBertConfig.default_theta["local"]
    assert nomic.rope_theta == NomicBertConfig.default_theta
    assert nomic.max_position_embeddings == hf_nomic.max_position_embeddings


# Statement 11: 2 H L d_head counts FLOPs (a multiply and an add per term).
def test_score_ops_are_flops_of_the_qk_row():
    model = models.get("Llama-2-7B")
    flops = 0
    for _head in range(model.num_heads):
        for _key in range(16):
            flops += 2 * model.head_dim  # d multiplies + d adds per dot product
    assert part2_extension.score_ops_per_token(model, 16) == flops


# Statement 12: figures quoted on pages 06 and 09 come from quoted.py, each with
# its paper and table. Golden values typed from the papers' tables.
@pytest.mark.parametrize(
    ("name", "value", "where"),
    [
        ("alibi_ppl_sinusoidal_15512", 406.01, "Table 2"),
        ("alibi_ppl_ALiBi_15512", 18.31, "Table 2"),
        ("alibi_ppl_T5 bias_15512", None, "Table 2"),
        ("alibi_speed_rotary", 20_000, "Table 1"),
        ("pi_ft_8192", 7.69, "Table 1"),
        ("pi_pi_8192", 6.95, "Table 1"),
        ("yarn_steps_llama2", 400, "4.1"),
    ],
)
def test_quoted_figures_name_their_table(name, value, where):
    from posenc_docs.pages import quoted

    assert quoted.get(name).value == value
    assert where in quoted.cite(name) and quoted.cite(name).startswith("quoted:")
    with pytest.raises(KeyError, match="known"):
        quoted.get("no such figure")


def test_pages_06_09_and_12_type_no_quoted_decimal():
    from pathlib import Path

    from posenc_docs.pages import quoted

    docs = Path(__file__).resolve().parents[1] / "docs" / "part2"
    pages = ("06-comparison.md", "09-practice.md", "12-references.md")
    text = "".join((docs / page).read_text() for page in pages)
    typed = [
        name
        for name, quote in quoted.QUOTES.items()
        if isinstance(quote.value, float) and not quote.value.is_integer()
        and re.search(rf"(?<![\d.]){quote.value:.2f}(?!\d)", text)
    ]  # fmt: skip
    assert typed == []


def test_static_ntk_leaves_most_slow_pairs_of_llama2_past_their_trained_arc():
    """Page 07: NTK-aware at s = 4 on Llama 2 7B. Independently: pair i is slowed
    by s^(2i/(d-2)), so a pair that never turned in L0 reaches s / s^(2i/(d-2))
    times its trained arc at s L0; only i = d/2 - 1 reaches exactly 1."""
    from posenc_docs import rope, scaling
    from posenc_docs.pages import part1

    d, base, L0, s = 128, 10_000.0, 4096, 4
    unturned = [i for i in range(d // 2) if 2 * math.pi * base ** (2 * i / d) >= L0]
    ratios = [s ** (1 - 2 * i / (d - 2)) for i in unturned]
    past = sum(r > 1 + 1e-12 for r in ratios)
    args = (scaling.ntk(d, base, factor=s)[0], rope.inv_freq(d, base), L0, s * L0)
    assert (len(unturned), past) == (18, 17)
    assert part1.pairs_overshooting(*args) == past
    assert part1.angle_overshoot(*args).max() == pytest.approx(max(ratios), rel=1e-12)
    assert round(max(ratios), 2) == 1.45
    page = part2_extension.ntk_overshoot(models.get("Llama-2-7B"), s)
    assert (page.length, page.pairs_past) == (s * L0, past)
    assert page.worst == pytest.approx(max(ratios), rel=1e-12)


@given(
    st.sampled_from([16, 64, 128]),
    st.floats(1.0, 32.0),
    st.integers(64, 8192),
    st.floats(1.0, 64.0),
)
def test_dynamic_slow_down_is_s_l_over_l0_minus_s_minus_one(d, factor, original, grow):
    """HF's dynamic base (b' = b (sL/L0 - (s-1))^(d/(d-2))) slows the slowest pair
    by sL/L0 - (s-1): at L = s L0 that is s^2 - s + 1 (07 and the lab page)."""
    length = int(original * grow)
    got = part2_extension.dynamic_slow_down(d, 10000.0, factor, original, length)
    want = max(factor * length / original - (factor - 1), 1.0)  # no change below L0
    assert got == pytest.approx(want, rel=1e-9)


def test_pair_zero_of_llama2_turns_just_under_652_times():
    turns = part2_extension.turns_within(4096, 128, 10000.0)
    assert turns == pytest.approx(4096 / (2 * math.pi)) and int(turns) == 651


def test_longropes_logits_grow_by_one_plus_ln_s_over_ln_l0():
    """07's Phi-3 sentence: the attention factor sqrt(1 + ln s / ln L0) is on q and
    on k, so the logits grow by 1 + ln 32 / ln 4096 = 1 + 5/12."""
    phi3 = models.get("Phi-3-mini-128k-instruct")
    factor = part2_extension.model_inv_freq(phi3, seq_len=phi3.max_position_embeddings)
    assert part2_extension.logit_factor(factor[1]) == pytest.approx(17 / 12, rel=1e-12)
    ratio = part2_extension.longrope_log_ratio(phi3)  # the page's middle step
    assert ratio == pytest.approx(5 / 12, rel=1e-12)


def test_legacy_transformers_read_qwen25s_yarn_block_as_factor_one():
    """transformers before PR #40320 (issue #38224) took max_position_embeddings
    over original_max_position_embeddings for YaRN's factor: 32,768 / 32,768 for
    Qwen2.5's model-card block (no stretch at all); DeepSeek-V3's configs set the
    ratio to its factor, 163,840 / 4,096 = 40 (values from the two configs)."""
    qwen = models.get("Qwen2.5-7B-Instruct")
    assert part2_extension.legacy_hf_yarn_factor(qwen) == 1.0
    assert qwen.rope_scaling["factor"] == 4.0  # what the card asks for
    deepseek = models.get("DeepSeek-V3")
    assert part2_extension.legacy_hf_yarn_factor(deepseek) == 40.0


def test_longropes_over_stretched_pairs_include_pairs_that_turned_in_training():
    """07's Phi-3 sentence: the long factors above s = 32 are the last 30 pairs,
    from pair 18 (wavelength 2 pi 10000^(36/96) = 198.7 tokens) on, and 16 of them
    are not slow pairs (their wavelength is under L0 = 4,096)."""
    model = models.get("Phi-3-mini-128k-instruct")
    long_list = model.rope_scaling["long_factor"]
    wavelengths = ref_wavelengths(2 * len(long_list), 10000.0)
    past = [i for i, f in enumerate(long_list) if f > 32]
    assert past == list(range(18, 48))
    over = part2_extension.over_stretched(model, 32.0, seq_len=131072)
    assert (over.pairs, over.first_pair) == (30, 18)
    assert over.shortest_wavelength == pytest.approx(wavelengths[18], rel=1e-12)
    assert over.shortest_wavelength == pytest.approx(198.69, abs=0.01)
    assert over.turned_in_training == sum(wavelengths[i] < 4096 for i in past) == 16
    assert over.last_over_factor == long_list[-1] / 32 == pytest.approx(2.02, abs=0.01)


def test_a_bert_input_keeps_its_positions_less_cls_and_sep(tmp_path):
    """09: "a 600-token text loses 90 tokens". Golden: Hugging Face's BERT
    tokenizer, truncating to BERT-base's 512 positions, keeps 510 text tokens."""
    from transformers import BertTokenizerFast

    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a"]))
    bert = models.get("BERT-base")
    tokenizer = BertTokenizerFast(vocab_file=str(vocab))
    ids = tokenizer(" ".join(["a"] * 600), truncation=True,
                    max_length=bert.max_position_embeddings)["input_ids"]  # fmt: skip
    kept = ids.count(tokenizer.convert_tokens_to_ids("a"))
    assert part2_extension.tokens_truncated(bert, 600) == 600 - kept == 90
    assert part2_extension.tokens_truncated(bert, 100) == 0
