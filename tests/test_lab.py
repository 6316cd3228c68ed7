"""The lab: its language, its passkey task, its models, its results and its page."""

import itertools
import json
import math

import numpy as np
import pytest
import torch

import posenc_docs.lab.run as run_module
from posenc_docs import lab, scaling
from posenc_docs.lab import data
from posenc_docs.lab.config import (
    EXPERIMENTS,
    FINE_TUNED,
    FULL,
    ROPE_BASE,
    SMOKE,
    to_dict,
)
from posenc_docs.lab.model import TinyGPT
from posenc_docs.lab.passkey import exact_match, passkey_loss
from posenc_docs.lab.run import main, run
from posenc_docs.lab.train import evaluate, use_rope_scaling
from posenc_docs.pages.part2_extension import yarn_logit_factor
from tests.conftest import ROOT

PASSKEY = FULL["passkey"]


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
    for c in range(4):  # c tokens read: token frequencies alone for c = 0
        got = data.context_entropy(table, c)
        assert got == pytest.approx(conditional[c], abs=1e-10)


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


@pytest.mark.parametrize("scheme", ["none", "learned", "sinusoidal", "rope", "alibi"])
def test_the_model_runs_on_the_device_it_is_moved_to(scheme):
    """The Lab page shows the model to copy: moved to another device (meta stands
    in for a GPU), its RoPE frequencies, positions and ALiBi bias follow the
    tokens (they stayed on the CPU: "positions must be on device meta"); in
    bfloat16 the ALiBi bias is too (it was float32: "bias must have q's dtype")
    and the frequencies stay float32."""
    torch.manual_seed(0)
    model = TinyGPT(scheme, vocab=11, d_model=16, n_head=2, n_layer=1, max_len=8)
    tokens = torch.randint(0, 11, (1, 8))
    expected = model(tokens)
    low = model.to(torch.bfloat16)(tokens)
    assert low.dtype == torch.bfloat16 and model.rope_inv_freq.dtype == torch.float32
    torch.testing.assert_close(low.float(), expected, atol=0.1, rtol=0.05)
    logits = model.to("meta")(tokens.to("meta"))
    assert logits.shape == (1, 8, 11) and logits.device.type == "meta"


def test_rope_scaling_with_factor_one_changes_nothing():
    torch.manual_seed(0)
    model = TinyGPT("rope", vocab=16, d_model=32, n_head=2, n_layer=1, max_len=8)
    config = SMOKE["perplexity"]  # d_head 16, L = 16
    tokens = torch.randint(0, 16, (2, 16))
    before = model(tokens)
    for method in [*config.zero_shot, "rope"]:
        use_rope_scaling(model, method, 1.0, config, seq_len=16)
        torch.testing.assert_close(model(tokens), before)
    use_rope_scaling(model, "pi", 4.0, config, seq_len=None)
    assert not torch.allclose(model(tokens), before)
    with pytest.raises(ValueError, match="method"):
        use_rope_scaling(model, "longrope", 2.0, config, seq_len=None)


def test_dynamic_ntk_grows_its_base_with_the_running_length():
    model = TinyGPT("rope", vocab=16, d_model=32, n_head=2, n_layer=1, max_len=8)
    config = SMOKE["perplexity"]
    slowest = []
    for seq_len in (16, 32, 64):
        use_rope_scaling(model, "dynamic", 4.0, config, seq_len=seq_len)
        slowest.append(model.rope_inv_freq[-1].item())
    # b' = 1e4 * (4 * n / 16 - 3) ** (16 / 14); the slowest pair is b' ** (-14 / 16)
    expected = [
        (1e4 * (4 * n / 16 - 3) ** (16 / 14)) ** (-14 / 16) for n in (16, 32, 64)
    ]
    assert slowest == pytest.approx(expected, rel=1e-5)


def planted(row, config):
    """Positions of the marker in one sequence, found by scanning it."""
    marker = config.vocab + config.key_vocab
    return [t for t, token in enumerate(row) if token == marker]


@pytest.mark.parametrize("depth", [0.0, 0.5, 1.0, None])
def test_passkey_sequences_plant_the_key_once_and_ask_for_it_at_the_end(depth):
    table = data.transition_table(16, 2, 0.1, seed=0)
    x = data.passkey_sequences(table, 50, 64, depth, PASSKEY, seed=3)
    K, V = PASSKEY.key_len, PASSKEY.vocab
    assert x.shape == (50, 65) and x.dtype == np.int64
    for row in x:
        first, question = planted(row, PASSKEY)  # the marker occurs exactly twice
        assert question == 64 - K
        key = list(row[-K:])
        assert list(row[first + 1 : first + 1 + K]) == key
        assert len(set(key)) == K and all(V <= k < V + PASSKEY.key_vocab for k in key)
        filler = np.delete(row, [*range(first, first + K + 1), *range(question, 65)])
        assert filler.max() < V  # digits occur only in the key
        if depth is not None:
            assert first == round(depth * (64 - 2 * K - 1))
            distance = data.passkey_distance(64, depth, K)
            assert question - first == distance
    np.testing.assert_array_equal(
        x, data.passkey_sequences(table, 50, 64, depth, PASSKEY, seed=3)
    )


def greedy_answer(model, prompt, key_len):
    """Generate ``key_len`` tokens one at a time, each the most likely next one."""
    tokens = prompt.clone()
    for _ in range(key_len):
        nxt = model(tokens)[:, -1].argmax(-1, keepdim=True)  # (n, 1)
        tokens = torch.cat([tokens, nxt], dim=1)
    return tokens[:, -key_len:]


def test_exact_match_is_greedy_decoding_of_the_key():
    torch.manual_seed(1)
    model = TinyGPT("alibi", PASSKEY.model_vocab, 32, 2, 1, 64).eval()
    table = data.transition_table(16, 2, 0.1, seed=0)
    x = data.passkey_sequences(table, 64, 32, None, PASSKEY, seed=5)
    K = PASSKEY.key_len
    with torch.no_grad():  # force some hits: make the key the likeliest tokens
        model.head.bias[PASSKEY.vocab :] += 3.0
        prompt = torch.from_numpy(x[:, : -K - 1])  # up to the question's marker
        right = (greedy_answer(model, prompt, K) == torch.from_numpy(x[:, -K:])).all(1)
    assert exact_match(model, x, K) == pytest.approx(right.float().mean().item())


def test_passkey_loss_weights_the_answer():
    torch.manual_seed(2)
    model = TinyGPT("rope", PASSKEY.model_vocab, 32, 2, 1, 64)
    table = data.transition_table(16, 2, 0.1, seed=0)
    tokens = torch.from_numpy(data.passkey_sequences(table, 4, 32, None, PASSKEY, 7))
    K = PASSKEY.key_len
    logp = torch.log_softmax(model(tokens[:, :-1]), -1)  # (B, T, vocab)
    surprise = [
        [-logp[b, t, tokens[b, t + 1]].item() for t in range(32)] for b in range(4)
    ]
    filler = np.mean([row[:-K] for row in surprise])
    answer = np.mean([row[-K:] for row in surprise])
    for weight in (0.0, 5.0):
        value = passkey_loss(model, tokens, K, weight).item()
        assert value == pytest.approx(filler + weight * answer, rel=1e-5)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("lab") / "results.json"
    main(["--smoke", "--out", str(out)])  # two worker processes
    return json.loads(out.read_text())


def check_schema(results, configs):
    """results.json has every field, and its numbers agree with its configs."""
    assert set(results) == {*configs, "provenance"}
    for experiment, config in configs.items():
        section = results[experiment]
        assert section["config"] == to_dict(config)  # every field, as run
        names = [*config.schemes, *config.zero_shot, *config.fine_tuned]
        assert list(section["runs"]) == names
        lengths = [m * config.train_len for m in config.eval_multiples]
        for name in names:
            seeds = section["runs"][name]
            assert [s["seed"] for s in seeds] == list(config.seeds)
            for summary in seeds:
                assert [r["length"] for r in summary["eval"]] == lengths
        learned = section["runs"]["learned"][0]["eval"]
        assert "error" not in learned[0]
        assert all(r["error"].startswith("IndexError") for r in learned[1:])
    if "perplexity" in configs:
        check_perplexity(results["perplexity"])
    p = results["provenance"]
    assert {"platform", "cpu_count", "torch", "threads", "workers"} <= set(p["machine"])
    assert {"git_commit", "date_utc", "package_version", "cpu_seconds"} <= set(p)


def check_perplexity(section):
    floors = [r["perplexity"] for r in section["source"]["floor"]]
    for seeds in section["runs"].values():
        for summary in seeds:
            for row, floor in zip(summary["eval"], floors, strict=True):
                if "error" not in row:  # nobody beats the exact floor
                    assert row["perplexity"] > 0.99 * floor
                    assert row["perplexity"] == pytest.approx(
                        math.exp(row["loss"]), 1e-3
                    )
    rate = section["source"]["entropy_rate_nats"]
    assert section["source"]["entropy_rate_perplexity"] == pytest.approx(
        math.exp(rate), 1e-5
    )


def test_smoke_run_learns_and_writes_valid_results(smoke):
    check_schema(smoke, SMOKE)
    for name in SMOKE["perplexity"].schemes:
        for summary in smoke["perplexity"]["runs"][name]:
            assert summary["train_loss"][-1] < summary["train_loss"][0]
            assert summary["train_loss"][-1] < math.log(SMOKE["perplexity"].vocab)
            assert summary["tokens_per_second"] > 0
    ft = smoke["passkey"]["runs"]["ft_yarn"][0]
    assert len(ft["train_loss"]) == 2  # 4 fine-tuning steps: the first and the last


def test_smoke_run_is_reproducible_in_one_process(smoke):
    again = run(SMOKE, None, log=lambda _: None, workers=1)
    for experiment in EXPERIMENTS:
        for name, seeds in smoke[experiment]["runs"].items():
            ours = [s["eval"] for s in again[experiment]["runs"][name]]
            assert ours == [s["eval"] for s in seeds], (experiment, name)
    seeds = smoke["perplexity"]["runs"]["rope"]  # and seeds do differ
    assert seeds[0]["eval"] != seeds[1]["eval"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workers", "0"], "--workers: must be an integer >= 1, got '0'"),
        (["--threads", "two"], "--threads: must be an integer >= 1, got 'two'"),
        (["--out", "{tmp}/missing/results.json"], "--out: no directory"),
        (["--out", "{tmp}"], "is a directory; name a file in it"),
    ],
)
def test_bad_command_lines_stop_before_any_training(tmp_path, capsys, argv, message):
    """A full run is minutes of training: a typo in --out must not surface at
    its end, nor a bad count as a pool's or torch's traceback."""
    argv = [arg.format(tmp=tmp_path) for arg in argv]
    with pytest.raises(SystemExit) as stop:
        main(["--smoke", "--experiment", "passkey", *argv])
    assert stop.value.code == 2
    err = capsys.readouterr()
    assert message in err.err and err.out == ""  # no job started


def test_one_experiment_alone(tmp_path, capsys):
    out = tmp_path / "passkey.json"
    main(["--smoke", "--experiment", "passkey", "--workers", "1", "--out", str(out)])
    results = json.loads(out.read_text())
    check_schema(results, {"passkey": SMOKE["passkey"]})
    progress = capsys.readouterr().out.splitlines()
    assert len(progress) == len(SMOKE["passkey"].seeds) * 13
    assert all("elapsed" in line and "left" in line for line in progress)


def test_committed_results_come_from_the_full_configuration():
    results = lab.load_results()
    check_schema(results, FULL)
    for experiment, config in FULL.items():
        assert to_dict(config) == results[experiment]["config"]
        assert len(config.seeds) >= 3
    assert results["provenance"]["git_dirty"] is False


def test_full_model_has_about_a_hundred_thousand_parameters():
    c = FULL["perplexity"]
    sizes = (c.vocab, c.d_model, c.n_head, c.n_layer, c.train_len)
    for scheme in c.schemes:  # "about a hundred thousand", as the page says
        count = sum(p.numel() for p in TinyGPT(scheme, *sizes).parameters())
        assert 90_000 < count < 110_000, (scheme, count)


def test_page_helpers_read_the_committed_results():
    assert lab.perplexity("alibi", 1) > lab.floor_perplexity(1)
    low, high = lab.perplexity_range("alibi", 1)
    assert low <= lab.perplexity("alibi", 1) <= high
    assert lab.error_message("learned", 2).startswith("IndexError")
    with pytest.raises(ValueError, match="did not run"):
        lab.perplexity("learned", 2)
    with pytest.raises(KeyError, match="name"):
        lab.perplexity("t5", 1)
    assert "RoPE + YaRN" in lab.our_table() and "IndexError" in lab.our_table()
    assert "OOM" in lab.paper_table() and "406.01" in lab.paper_table()
    assert "99.4%" in lab.yarn_passkey_table() and "2,560" in lab.pi_passkey_table()
    grid = lab.depth_grid("learned")
    assert len(grid) == len(PASSKEY.depths) and grid[0][1] is None
    assert lab.accuracy("rope", 1) == pytest.approx(
        np.mean(lab.depth_grid("rope"), 0)[0]
    )


def below(name, other, multiple, metric=lab.perplexity_range):
    """Every seed of ``name`` is below every seed of ``other``: beyond the spread."""
    return metric(name, multiple)[1] < metric(other, multiple)[0]


def overlap(name, other, multiple, metric=lab.perplexity_range):
    """The seed ranges of ``name`` and ``other`` overlap: within the spread."""
    return not below(name, other, multiple, metric) and not below(
        other, name, multiple, metric
    )


def acc_range(name, multiple, depth=None):
    return lab.accuracy_range(name, multiple, depth)


def test_committed_perplexity_supports_what_the_page_says():
    ppl = lab.perplexity
    vocab = lab.settings()["vocab"]
    assert ppl("sinusoidal", 2) > 2 * ppl("sinusoidal", 1)
    assert ppl("sinusoidal", 16) > vocab  # worse than a uniform guess
    assert below("rope", "sinusoidal", 2)
    assert overlap("rope", "sinusoidal", 16)  # "within each other's spread"
    alibi = [ppl("alibi", m) for m in FULL["perplexity"].eval_multiples]
    assert alibi == sorted(alibi, reverse=True)  # longer windows help
    floors = [lab.floor_perplexity(m) for m in FULL["perplexity"].eval_multiples]
    assert floors == sorted(floors, reverse=True)
    assert below("rope", "alibi", 1) and below("rope", "sinusoidal", 1)
    assert lab.perplexity("alibi", 16) > ppl("rope", 1)  # "never to RoPE's at L"
    assert overlap("alibi", "sinusoidal", 1)
    assert all(below(n, "none", 1) for n in ("learned", "sinusoidal", "rope", "alibi"))
    # "most of that gain has a known cause": the floor's fall, in log perplexity
    assert 0.5 < lab.floor_share_of_gain("alibi", 16) <= 1.0
    # the page prints both falls: the share must follow from them as printed
    printed = round(lab.floor_log_fall(16), 4) / round(lab.log_fall("alibi", 16), 4)
    assert round(100 * printed) == round(100 * lab.floor_share_of_gain("alibi", 16))
    order_1 = lab.context_perplexity(1)  # the previous token alone
    assert abs(ppl("sinusoidal", 2) / order_1 - 1) < 0.05  # "about what ... allows"
    assert lab.floor_perplexity(1) < ppl("none", 1) < order_1  # NoPE: between
    assert all(below(n, "learned", 1) for n in ("sinusoidal", "rope", "alibi"))
    paper = lab.paper.TABLE2_PERPLEXITY  # "one run each, within 2%; T5 bias lower"
    at_l = [paper[n][0] for n in ("ALiBi", "sinusoidal", "rotary")]
    assert max(at_l) / min(at_l) < 1.02 and paper["T5 bias"][0] < min(at_l)
    # Table 2's last column is 15,512 tokens, the models trained on 512
    assert lab.tables.paper_length_multiple(3) == pytest.approx(15512 / 512)


def test_committed_zero_shot_results_support_what_the_page_says():
    for name in FULL["perplexity"].zero_shot:  # s = 1 is plain RoPE
        assert lab.perplexity(name, 1) == lab.perplexity("rope", 1)
        assert lab.accuracy(name, 1) == lab.accuracy("rope", 1)
        assert below("alibi", name, 8) and below("alibi", name, 16)  # from 8 L on
    assert all(below(n, "alibi", 2) for n in ("ntk", "dynamic", "yarn", "llama3"))
    assert below("rope", "pi", 2)
    assert overlap("pi", "rope", 2, acc_range)  # "but the seed ranges overlap"
    assert lab.accuracy("pi", 2) < lab.accuracy("rope", 2)  # "lower on average"
    assert below("dynamic", "yarn", 16) and below("dynamic", "llama3", 16)
    assert overlap("dynamic", "yarn", 4)
    assert below("dynamic", "yarn", 16, acc_range)  # YaRN finds the most keys
    assert below("alibi", "yarn", 16, acc_range)
    multiples = FULL["passkey"].eval_multiples
    assert all(lab.accuracy("yarn", m) > 0.5 for m in multiples)  # "most ... to 16 L"
    # "though not those planted just before the question": below every pooled seed
    assert acc_range("yarn", 16, depth=-1)[1] < acc_range("yarn", 16)[0]
    assert below("llama3", "yarn", 16, acc_range)  # "above every seed of ... Llama 3.1"
    best = max(FULL["passkey"].zero_shot, key=lambda n: lab.accuracy(n, 16))
    assert best == "yarn"


def test_committed_fine_tune_results_support_what_the_page_says():
    assert below("ft_yarn", "yarn", 4) and below("ft_yarn", "alibi", 4)
    best_at_4 = min(
        [*FULL["perplexity"].schemes[2:], *FULL["perplexity"].zero_shot, "ft_rope"]
        + ["ft_pi", "ft_yarn"],
        key=lambda n: lab.perplexity(n, 4),
    )
    assert best_at_4 == "ft_yarn"
    assert below("ft_pi", "pi", 4) and below("rope", "ft_pi", 1)
    assert below("ft_rope", "rope", 4) and below("rope", "ft_rope", 1)
    assert below("yarn", "ft_yarn", 16)  # past the fine-tuning length
    assert overlap("ft_yarn", "rope", 1)  # "at L it stays where RoPE was"
    for tuned, zero_shot in (("ft_yarn", "yarn"), ("ft_rope", "rope"), ("ft_pi", "pi")):
        assert overlap(tuned, zero_shot, 4, acc_range)  # "within the spread"
    assert overlap("ft_pi", "ft_rope", 4, acc_range)
    assert overlap("ft_pi", "ft_rope", 4)
    assert below("ft_pi", "rope", 1, acc_range)


def test_committed_speeds_show_the_rotation_but_not_the_bias_beyond_noise():
    """The page: RoPE is slowest on average, every RoPE run is slower than every
    run of none, learned and sinusoidal, its fastest beats ALiBi's slowest, and a
    scheme's seeds differ by up to timing_spread."""
    runs = lab.load_results()["perplexity"]["runs"]
    speeds = {n: [r["tokens_per_cpu_second"] for r in runs[n]] for n in runs
              if n in FULL["perplexity"].schemes}  # fmt: skip
    mean = {n: sum(v) / len(v) for n, v in speeds.items()}
    assert min(mean, key=mean.get) == "rope"
    plain = ("none", "learned", "sinusoidal")
    assert all(max(speeds["rope"]) < min(speeds[n]) for n in plain)
    assert max(speeds["rope"]) > min(speeds["alibi"])
    # "ALiBi's runs overlap those of the learned and sinusoidal models"
    for n in ("learned", "sinusoidal"):
        assert min(speeds["alibi"]) < max(speeds[n])
        assert min(speeds[n]) < max(speeds["alibi"])
    spread = max(max(v) / min(v) - 1 for v in speeds.values())
    assert lab.tables.timing_spread() == pytest.approx(spread, rel=1e-12)
    assert lab.speed_range("rope") == (min(speeds["rope"]), max(speeds["rope"]))


def test_fine_tune_share_of_pre_training_steps_and_tokens():
    for experiment in ("perplexity", "passkey"):
        c = lab.settings(experiment)
        pre = c["steps"] * c["batch"] * c["train_len"]
        tuned = (
            c["finetune_steps"] * c["batch"] * c["train_len"] * c["finetune_multiple"]
        )
        assert lab.tables.finetune_share(tokens=True) == pytest.approx(tuned / pre)
        assert lab.tables.finetune_share(tokens=False) == pytest.approx(
            c["finetune_steps"] / c["steps"]
        )


def test_committed_passkey_results_support_what_the_page_says():
    for name in ("learned", "sinusoidal", "rope", "alibi"):
        assert below("none", name, 1, acc_range)
        for other in ("learned", "sinusoidal", "rope", "alibi"):  # "but for one pair"
            apart = {name, other} == {"learned", "sinusoidal"}
            assert name == other or overlap(name, other, 1, acc_range) != apart
    assert below("learned", "sinusoidal", 1, acc_range)
    for name in ("none", "learned", "sinusoidal", "rope", "alibi"):
        by_depth = [lab.accuracy(name, 1, d) for d in range(len(PASSKEY.depths))]
        # depth 100% is "the hardest ... but the learned table, whose easiest it is"
        extreme = max if name == "learned" else min
        assert by_depth[-1] == extreme(by_depth), name
    assert lab.accuracy("rope", 1, -1) < lab.accuracy("rope", 1)
    past_l = [cell for row in lab.depth_grid("sinusoidal") for cell in row[1:]]
    assert 0 < max(past_l) < 0.025  # Figure 2: sinusoidal "almost nothing past L"
    assert isinstance(lab.settings()["lr"], float)  # one learning rate for all
    table4 = lab.paper_passkey.PI_TABLE4  # (model, window, method) -> k_max per step
    dips = [
        (key, k)
        for key, row in table4.items()
        if key[2] == "PI"
        for k, value in enumerate(row)
        if value is not None and value < key[1]
    ]
    assert dips == [(("7B", 32768, "PI"), 2)]  # "nearly the whole window": one dip
    # "lose the key": no seed finds more than 2% past L
    assert all(lab.accuracy_range("sinusoidal", m)[1] <= 0.02 for m in (2, 4, 8, 16))
    rope = [lab.accuracy("rope", m) for m in FULL["passkey"].eval_multiples]
    assert rope == sorted(rope, reverse=True)  # "fades a step past L"
    assert below("rope", "alibi", 16, acc_range)
    assert overlap("none", "alibi", 16, acc_range)  # "a range that overlaps ALiBi's"
    near, far = len(PASSKEY.depths) - 1, 0
    assert (
        lab.accuracy_range("alibi", 16, far)[1]
        < lab.accuracy_range("alibi", 16, near)[0]
    )  # recency: the key just before the question, not the one far back
    for name in ("sinusoidal", "rope"):  # the others with positions lose the key
        assert below(name, "alibi", 16, acc_range)
    assert overlap("none", "alibi", 16, acc_range)  # NoPE: "fewer than 40%"
    assert max(lab.accuracy("none", m) for m in PASSKEY.eval_multiples) < 0.4
    # "the only one that still finds more than a few percent of the keys at 16L"
    # (learned has no rows there)
    assert all(lab.accuracy(n, 16) < 0.05 for n in ("sinusoidal", "rope"))
    assert lab.accuracy("alibi", 16) > 0.05


def test_committed_speeds_support_what_the_page_says():
    speeds = {n: lab.relative_speed(n) for n in FULL["perplexity"].schemes}
    assert min(speeds, key=speeds.get) == "rope"  # "again the slowest"
    others = [v for n, v in speeds.items() if n != "rope"]
    assert all(abs(v - 1) < 0.1 for v in others)  # "at most N% slower"
    assert speeds["rope"] < min(others)
    # ALiBi "probably within the timing noise (though every ALiBi run is slower
    # than every run without positions)": overlaps learned, below none
    assert lab.speed_range("alibi")[1] < lab.speed_range("none")[0]
    assert lab.speed_range("alibi")[1] > lab.speed_range("learned")[0]


def test_dynamic_ntk_with_factor_one_is_static_ntk_at_the_running_factor():
    """The page: given factor 1, transformers' dynamic formula sets the factor from
    the running length alone, which gives the static NTK row's frequencies."""
    d, length = lab.head_width(), lab.settings()["train_len"]
    for s in (2, 4, 8, 16):
        dynamic = scaling.from_rope_scaling(
            d, ROPE_BASE, {"rope_type": "dynamic", "factor": 1.0},
            max_position_embeddings=length, seq_len=s * length,
        )[0]  # fmt: skip
        ntk = {"rope_type": "ntk", "factor": s}
        static = scaling.from_rope_scaling(d, ROPE_BASE, ntk)
        np.testing.assert_allclose(dynamic, static[0], rtol=1e-12)


def test_the_labs_yarn_ramp_and_logit_growth_are_what_the_page_says():
    """The page: even the fastest pair turns fewer than 32 times within L0 = L
    (so the ramp starts at pair 0), and YaRN's logits grow by (0.1 ln s + 1)^2."""
    s = lab.settings()
    d, length = s["d_model"] // s["n_head"], s["train_len"]
    assert length / (2 * math.pi) < 32  # pair 0 turns once per 2 pi tokens
    low, high = lab.yarn_ramp()
    assert low == 0 < high < d // 2
    config = FULL["perplexity"]
    model = TinyGPT("rope", config.vocab, config.d_model, config.n_head, 1, length)
    for multiple in (4, 16):
        growth = (0.1 * math.log(multiple) + 1) ** 2
        assert yarn_logit_factor(multiple) == pytest.approx(growth, rel=1e-12)
        use_rope_scaling(model, "yarn", float(multiple), config, multiple * length)
        assert model.rope_attention_factor**2 == pytest.approx(growth, rel=1e-12)


def test_minutes_carry_into_the_next_minute():
    assert [run_module._minutes(s) for s in (59.6, 479.6, 61.2)] == [
        "1:00",
        "8:00",
        "1:01",
    ]


def test_dynamic_slow_down_of_the_lab_is_s_squared_minus_s_plus_one():
    """The lab's dynamic NTK: factor s at length s L slows the slowest pair by
    s L / L - (s - 1) (HF's formula), far more than static NTK's s."""
    for s in FULL["perplexity"].eval_multiples:
        assert lab.dynamic_slow_down(s) == pytest.approx(s * s - s + 1, rel=1e-9)


def test_committed_results_support_the_figures_alt_texts():
    """The lab figures' alt texts describe the data, not only axes: each claim of
    lab-rope-scalings, lab-passkey-schemes, lab-passkey-rope and lab-finetune."""
    at_16 = {n: lab.perplexity(n, 16) for n in ("rope", *FULL["perplexity"].zero_shot)}
    assert max(at_16, key=at_16.get) == "pi"  # "interpolation highest at 16 L"
    assert below("dynamic", "yarn", 16) and below("yarn", "llama3", 16)
    assert below("llama3", "ntk", 16) and below("ntk", "rope", 16)  # "climbs later"
    rope = [lab.accuracy("rope", m) for m in FULL["passkey"].eval_multiples]
    assert rope[1] < rope[0] and max(rope[3:]) <= 0.05  # "almost nothing from 8 L"
    # lab-passkey-rope, at 16 L by depth: the last column of each depth grid
    last = {n: [row[-1] for row in lab.depth_grid(n)]
            for n in ("rope", *FULL["passkey"].zero_shot, *FINE_TUNED)}  # fmt: skip
    assert min(last["yarn"][:-1]) > 0.5 and last["yarn"][-1] < 0.25  # "most", "few"
    overall = {n: lab.accuracy(n, 16) for n in last}
    assert overall["yarn"] > 0.5  # "only zero-shot YaRN still finds most keys"
    assert all(overall[n] < 0.5 for n in last if n != "yarn")
    assert max(overall["dynamic"], overall["llama3"]) < 1 / 3  # "under a third"
    assert max(last["pi"] + last["ntk"]) <= 0.3  # "few"
    assert overall["rope"] <= 0.02 and max(last["rope"]) < 0.05  # "almost none"
    assert lab.accuracy("ft_pi", 1) < 0.5  # "misses most keys even at L"
    # lab-finetune
    at_4 = {n: lab.perplexity(n, 4) for n in ("rope", "pi", "yarn", *FINE_TUNED)}
    assert min(at_4, key=at_4.get) == "ft_yarn"  # "lowest perplexity" at 4 L
    assert lab.perplexity("ft_pi", 1) > lab.perplexity("rope", 1)  # "worse than RoPE"
    assert lab.accuracy("ft_pi", 1) < lab.accuracy("rope", 1)  # "in both panels"
    for name in FINE_TUNED:  # "past 4 L the perplexity of every fine-tuned model"
        assert (
            lab.perplexity(name, 4) < lab.perplexity(name, 8) < lab.perplexity(name, 16)
        )
    assert lab.perplexity("ft_yarn", 16) > lab.perplexity("yarn", 16)


def test_the_page_flags_the_one_scale_factor_of_yarns_table_5_that_does_not_add_up():
    """s is the window over Llama 2's 4,096 tokens for PI and YaRN: the YaRN rows
    agree; Together's 32k PI model is printed with s = 4 where 32k / 4k is 8."""
    rows = {(r[0], r[1], r[2]): r for r in lab.paper_passkey.YARN_TABLE5}
    for row in rows.values():
        if row[5] == "YaRN":
            assert lab.window_ratio(row) == row[2], row
    together = rows["7B", "Together", 4]
    assert lab.window_ratio(together) == 8 != together[2]
    page = (ROOT / "docs/lab/index.md").read_text(encoding="utf-8")
    assert "not the {{ lab.paper_passkey.YARN_TABLE5[0][2] }} printed" in page


def test_the_page_says_code_llamas_printed_scale_is_not_its_base_change():
    """Table 5 prints s = 88.6 for Code Llama (NTK); its base went from 10,000 to
    1,000,000, which slows the slowest of 64 pairs by 100 ** (126 / 128) = 93.1."""
    code_llama = lab.paper_passkey.YARN_TABLE5[1]
    assert code_llama[1] == "Code Llama" and code_llama[2] == 88.6
    slowest = 1e6 ** (-126 / 128) / 1e4 ** (-126 / 128)  # theta_63, new over old
    assert round(1 / slowest, 1) == 93.1
    page = (ROOT / "docs/lab/index.md").read_text(encoding="utf-8")
    assert "Code Llama's {{ lab.paper_passkey.YARN_TABLE5[1][2] }} is no window" in page


def test_seeds_ahead_pairs_seeds_as_the_page_reads_them():
    """lab: "seed by seed" counts, from results.json's rows by a plain loop."""
    results = lab.load_results()
    section = results["passkey"]

    def mean_accuracy(name, seed_index, multiple):
        summary = section["runs"][name][seed_index]
        length = multiple * section["config"]["train_len"]
        (row,) = [r for r in summary["eval"] if r["length"] == length]
        return sum(row["accuracy"]) / len(row["accuracy"])

    seeds = range(len(section["config"]["seeds"]))
    for name, other in [("ft_rope", "rope"), ("ft_pi", "pi"), ("ft_yarn", "yarn"),
                        ("ft_rope", "ft_pi")]:  # fmt: skip
        ahead = sum(
            mean_accuracy(name, i, 4) > mean_accuracy(other, i, 4) for i in seeds
        )
        assert lab.seeds_ahead(name, other, 4) == ahead, (name, other)
    # "the paper's contrast reversed": plain fine-tuning ahead in most seeds
    assert 2 * lab.seeds_ahead("ft_rope", "ft_pi", 4) > len(seeds)
