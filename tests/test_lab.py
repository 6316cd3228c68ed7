"""The lab: its language, its exact entropy floor, its models and its results file."""

import itertools
import json
import math

import numpy as np
import pytest
import torch

from posenc_docs import lab
from posenc_docs.lab import data
from posenc_docs.lab.config import FULL, SMOKE, from_dict, to_dict
from posenc_docs.lab.model import TinyGPT
from posenc_docs.lab.run import run
from posenc_docs.lab.train import evaluate, use_rope_scaling


def brute_force_entropies(table, n):
    """H(X_0..X_{m-1}) for m = 1..n by enumerating every sequence of n tokens.

    The start distribution is found independently of the package: iterate the
    joint law of k consecutive tokens until it stops changing.
    """
    vocab, order = table.shape[-1], table.ndim - 1
    start = np.full((vocab,) * order, vocab**-order)
    for _ in range(2000):  # p(b.., c) = sum_a p(a, b..) P(c | a, b..)
        start = np.einsum("a...,a...c->...c", start, table)
    joints = {}
    for seq in itertools.product(range(vocab), repeat=n):
        p = start[seq[:order]]
        for t in range(order, n):
            p *= table[seq[t - order : t + 1]]
        joints[seq] = p
    entropies = []
    for m in range(1, n + 1):
        marginal = {}
        for seq, p in joints.items():
            marginal[seq[:m]] = marginal.get(seq[:m], 0.0) + p
        entropies.append(-sum(p * math.log(p) for p in marginal.values() if p > 0))
    return entropies  # entropies[m - 1] = H(X_0 .. X_{m-1})


@pytest.mark.parametrize("order", [1, 2])
def test_entropy_rate_and_window_floor_match_brute_force(order):
    table = data.transition_table(3, order, 0.5, seed=4)
    joint = brute_force_entropies(table, 6)
    conditional = np.diff([0.0, *joint])  # H(X_m | X_0..X_{m-1})
    assert data.entropy_rate(table) == pytest.approx(conditional[-1], abs=1e-10)
    for length in (1, 2, 5):  # prediction t has read t + 1 tokens
        expected = conditional[1 : length + 1].mean()
        assert data.window_floor(table, length) == pytest.approx(expected, abs=1e-10)


def test_entropy_rate_matches_a_sampled_estimate():
    table = data.transition_table(16, 2, 0.1, seed=0)
    x = data.sample(table, 200, 1000, seed=3)
    surprise = -np.log(table[x[:, :-2], x[:, 1:-1], x[:, 2:]])
    error = surprise.std() / math.sqrt(surprise.size)
    assert abs(surprise.mean() - data.entropy_rate(table)) < 4 * error


def test_sampling_is_deterministic_and_seeded():
    table = data.transition_table(16, 2, 0.1, seed=0)
    np.testing.assert_array_equal(data.transition_table(16, 2, 0.1, seed=0), table)
    first = data.sample(table, 4, 50, seed=7)
    np.testing.assert_array_equal(first, data.sample(table, 4, 50, seed=7))
    assert not np.array_equal(first, data.sample(table, 4, 50, seed=8))
    assert first.dtype == np.int64 and first.min() >= 0 and first.max() < 16


def test_bad_source_arguments_are_refused():
    with pytest.raises(ValueError, match="concentration"):
        data.transition_table(16, 2, 0.0, seed=0)
    with pytest.raises(ValueError, match="length"):
        data.window_floor(data.transition_table(4, 1, 1.0, seed=0), 0)


def test_learned_model_raises_index_error_past_its_table():
    torch.manual_seed(0)
    model = TinyGPT("learned", vocab=16, d_model=16, n_head=2, n_layer=1, max_len=8)
    assert model(torch.zeros(1, 8, dtype=torch.long)).shape == (1, 8, 16)
    with pytest.raises(IndexError, match="no row for position 8"):
        model(torch.zeros(1, 9, dtype=torch.long))
    row = evaluate(model, np.zeros((1, 17), dtype=np.int64), 16)
    assert row["length"] == 16 and row["error"].startswith("IndexError: ")


def test_rope_scaling_with_factor_one_changes_nothing():
    torch.manual_seed(0)
    model = TinyGPT("rope", vocab=16, d_model=32, n_head=2, n_layer=1, max_len=8)
    tokens = torch.randint(0, 16, (2, 20))
    before = model(tokens)
    for method in SMOKE.rope_scalings:
        use_rope_scaling(model, method, 1.0, SMOKE)
        torch.testing.assert_close(model(tokens), before)
    use_rope_scaling(model, "pi", 4.0, SMOKE)
    assert not torch.allclose(model(tokens), before)
    with pytest.raises(ValueError, match="method"):
        use_rope_scaling(model, "longrope", 2.0, SMOKE)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("lab") / "results.json"
    return run(SMOKE, out, log=lambda _: None), out


def check_schema(results, config):
    """results.json has every field, and its numbers agree with its config."""
    assert from_dict(results["config"]) == config
    assert set(results) == {"config", "source", "runs", "rope_scaled", "provenance"}
    lengths = [m * config.train_len for m in config.eval_multiples]
    assert [r["length"] for r in results["source"]["floor"]] == lengths
    assert list(results["runs"]) == list(config.schemes)
    assert list(results["rope_scaled"]) == list(config.rope_scalings)
    floors = [r["perplexity"] for r in results["source"]["floor"]]
    runs = [*results["runs"].values(), *results["rope_scaled"].values()]
    for summary in runs:
        assert [r["length"] for r in summary["eval"]] == lengths
        for row, floor in zip(summary["eval"], floors, strict=True):
            if "error" not in row:  # nobody beats the exact floor
                assert row["perplexity"] > 0.99 * floor
                assert row["perplexity"] == pytest.approx(math.exp(row["loss"]), 1e-3)
    learned = results["runs"]["learned"]["eval"]
    assert "error" not in learned[0]
    assert all(r["error"].startswith("IndexError") for r in learned[1:])
    machine = results["provenance"]["machine"]
    assert {"platform", "cpu_count", "torch", "threads"} <= set(machine)
    assert {"git_commit", "date_utc", "package_version"} <= set(results["provenance"])
    rate = results["source"]["entropy_rate_nats"]
    assert results["source"]["entropy_rate_perplexity"] == pytest.approx(
        math.exp(rate), 1e-5
    )


def test_smoke_run_learns_and_writes_valid_results(smoke):
    results, out = smoke
    assert json.loads(out.read_text()) == results
    check_schema(results, SMOKE)
    for summary in results["runs"].values():
        assert summary["train_loss"][-1] < summary["train_loss"][0]
        assert summary["train_loss"][-1] < math.log(SMOKE.vocab)  # beats uniform
        assert summary["tokens_per_second"] > 0


def test_smoke_run_is_reproducible(smoke):
    again = run(SMOKE, None, log=lambda _: None)
    for name in SMOKE.schemes:
        assert again["runs"][name]["eval"] == smoke[0]["runs"][name]["eval"]


def test_committed_results_come_from_the_full_configuration():
    results = lab.load_results()
    check_schema(results, FULL)
    assert to_dict(FULL) == results["config"]


def test_page_helpers_read_the_committed_results():
    assert lab.perplexity("alibi", 1) > lab.floor_perplexity(1)
    assert lab.error_message("learned", 2).startswith("IndexError")
    with pytest.raises(ValueError, match="did not run"):
        lab.perplexity("learned", 2)
    with pytest.raises(KeyError, match="name"):
        lab.perplexity("t5", 1)
    assert "RoPE + YaRN" in lab.our_table() and "IndexError" in lab.our_table()
    assert "OOM" in lab.paper_table() and "406.01" in lab.paper_table()
    assert all(len(v) == 4 for v in lab.paper.TABLE2_PERPLEXITY.values())


def test_committed_results_support_what_the_page_says():
    ppl = lab.perplexity
    vocab = lab.load_results()["config"]["vocab"]
    at_l = {n: ppl(n, 1) for n in ("sinusoidal", "rope", "alibi", "none")}
    assert abs(at_l["sinusoidal"] / at_l["rope"] - 1) < 0.02  # "as good as any"
    assert ppl("sinusoidal", 2) > 2 * at_l["sinusoidal"]
    assert ppl("sinusoidal", 16) > vocab  # worse than a uniform guess
    assert ppl("rope", 2) < ppl("sinusoidal", 2)
    alibi = [ppl("alibi", m) for m in FULL.eval_multiples]
    assert alibi == sorted(alibi, reverse=True)  # longer windows help
    floors = [lab.floor_perplexity(m) for m in FULL.eval_multiples]
    assert floors == sorted(floors, reverse=True)
    assert at_l["alibi"] > max(at_l["sinusoidal"], at_l["rope"])  # "not the best"
    none = [ppl("none", m) for m in FULL.eval_multiples]
    assert none == sorted(none) and none[0] > 2 * at_l["rope"]
    for m in FULL.eval_multiples[1:]:  # zero-shot: YaRN < NTK < RoPE < PI
        assert ppl("yarn", m) < ppl("ntk", m) < ppl("rope", m) < ppl("pi", m)
    for name in FULL.rope_scalings:  # s = 1 is plain RoPE
        assert ppl(name, 1) == at_l["rope"]
    assert ppl("yarn", 16) > 2 * alibi[-1]  # none of them matches ALiBi


def test_full_model_has_about_a_hundred_thousand_parameters():
    sizes = (FULL.vocab, FULL.d_model, FULL.n_head, FULL.n_layer, FULL.train_len)
    for scheme in FULL.schemes:  # "about a hundred thousand", as the page says
        count = sum(p.numel() for p in TinyGPT(scheme, *sizes).parameters())
        assert 90_000 < count < 110_000, (scheme, count)


def test_committed_speeds_support_what_the_page_says():
    speeds = {n: lab.relative_speed(n) for n in FULL.schemes}
    assert min(speeds, key=speeds.get) == "rope"  # "again the slowest"
    assert all(abs(v - 1) < 0.06 for n, v in speeds.items() if n != "rope")
