"""Figures for Part II, pages 06 and 07: RoPE wavelengths and context extension.

Every per-pair figure plots the slow-down theta_i / theta'_i of each rotary pair
against the pair's original wavelength lambda_i (log axes), with the training length
marked: pairs left of the line turned at least once during training.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from posenc_docs import rope, scaling
from posenc_docs.figures.spec import FigureSpec
from posenc_docs.figures.style import data_colour, themed
from posenc_docs.pages import models, part2_extension

MARKERS = ("o", "s", "^", "D")


def _wavelengths(d: int, base: float) -> np.ndarray:
    return scaling.wavelengths(rope.inv_freq(d, base))


def _mark_lengths(ax, lengths: list, colors: dict):
    """Dashed line at each training length, labelled above the plot, off the data."""
    for length in lengths:
        ax.axvline(length, color=colors["muted"], linestyle="--", linewidth=1.2)
    top = ax.secondary_xaxis("top")
    top.set_xticks(lengths, labels=[f"{length:,}" for length in lengths])
    top.xaxis.set_minor_locator(NullLocator())
    top.tick_params(labelsize=9, labelcolor=colors["muted"], color=colors["muted"])
    top.set_xlabel("original length L₀ (dashed)", fontsize=9, color=colors["muted"])


def _scale_axes(ax, title: str, ymax: float):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(0.85, ymax * 1.35)
    ticks = 2.0 ** np.arange(0, np.floor(np.log2(ymax)) + 1)  # 1, 2, 4, ...
    if ymax / ticks[-1] > 1.1:  # label the top value too (e.g. 40), in place of a
        near = ymax / ticks[-1] < 1.5  # power of two whose label it would touch
        ticks = np.append(ticks[:-1] if near else ticks, round(ymax, 1))
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("original wavelength of the pair, tokens (log)")
    ax.set_ylabel("slow-down θ / θ′ (log)")
    ax.set_title(title, fontsize=11)
    ax.grid(True, which="major", alpha=0.6)
    ax.figure.legend(loc="outside lower center", ncols=2, fontsize=9)


def _curves(theme: str, title: str, curves: list, lengths: list, ymax: float):
    """Draw (label, wavelengths, factors) curves and mark each training length."""
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
        for k, (label, wavelength, factors) in enumerate(curves):
            ax.plot(
                wavelength,
                factors,
                marker=MARKERS[k % len(MARKERS)],
                markersize=3.5,
                linewidth=1.6,
                color=data_colour(k),
                label=label,
            )
        _scale_axes(ax, title, ymax)
        _mark_lengths(ax, lengths, colors)  # after the log scale, which resets ticks
    return fig


def pair_wavelengths(names: tuple, *, theme: str):
    """Wavelength of every rotary pair of each model, its training length marked."""
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
        for k, name in enumerate(names):
            model = models.get(name)
            wavelength = _wavelengths(model.rotary_dim, model.rope_theta)
            length = model.max_position_embeddings
            turns = wavelength < length
            pairs = np.arange(len(wavelength))
            color = data_colour(k)
            ax.plot(pairs, wavelength, color=color, linewidth=1.2, alpha=0.7)
            ax.scatter(pairs[turns], wavelength[turns], s=14, color=color,
                       label=f"{name}: turns within {length:,}")  # fmt: skip
            ax.scatter(pairs[~turns], wavelength[~turns], s=14, facecolors="none",
                       edgecolors=color, label=f"{name}: never turns")  # fmt: skip
            ax.axhline(length, color=color, linestyle="--", linewidth=1)
        ax.set_yscale("log")
        ax.set_xlabel("pair index i")
        ax.set_ylabel("wavelength 2π/θᵢ, tokens (log)")
        ax.set_title("Filled: a full turn inside the training length", fontsize=11)
        ax.grid(True, which="major", alpha=0.6)
        ax.legend(loc="upper left", fontsize=8.5, labelcolor=colors["fg"])
    return fig


def methods_overview(name: str, factor: float, *, theme: str):
    """PI, NTK-aware, YaRN and Llama 3.1 scaling on one model at one factor."""
    model = models.get(name)
    d, base, L0 = model.rotary_dim, model.rope_theta, model.max_position_embeddings
    theta = rope.inv_freq(d, base)
    methods = {
        "PI (linear)": scaling.linear(d, base, factor=factor),
        "NTK-aware": scaling.ntk(d, base, factor=factor),
        "YaRN": scaling.yarn(
            d, base, factor=factor, original_max_position_embeddings=L0
        ),
        "Llama 3.1 (low 1, high 4)": scaling.llama3(
            d,
            base,
            factor=factor,
            low_freq_factor=1.0,
            high_freq_factor=4.0,
            original_max_position_embeddings=L0,
        ),
    }
    curves = [
        (label, scaling.wavelengths(theta), scaling.scale_per_pair(freq, theta))
        for label, (freq, _) in methods.items()
    ]
    title = f"{name} stretched {factor:g}×: {L0:,} → {round(L0 * factor):,}"
    return _curves(theme, title, curves, [L0], factor)


def model_curves(names: tuple, title: str, *, theme: str, seq_len: int | None = None):
    """Each model's own rope_scaling, per pair, its original length marked."""
    curves, lengths, ymax = [], [], 1.0
    for name in names:
        model = models.get(name)
        factors = part2_extension.model_scale_factors(model, seq_len=seq_len)
        wavelength = _wavelengths(model.rotary_dim, model.rope_theta)
        ceiling = part2_extension.context_ceiling(model)
        curves.append(
            (f"{name} ({model.rope_scaling['rope_type']})", wavelength, factors)
        )
        if ceiling.original not in lengths:
            lengths.append(ceiling.original)
        ymax = max(ymax, float(factors.max()))
    return _curves(theme, title, curves, lengths, ymax)


def ntk_family(name: str, factors: tuple, *, theme: str):
    """Static NTK-aware scaling of one model at several factors."""
    model = models.get(name)
    d, base, L0 = model.rotary_dim, model.rope_theta, model.max_position_embeddings
    theta = rope.inv_freq(d, base)
    curves = []
    for s in factors:
        freq, _ = scaling.ntk(d, base, factor=s)
        new_base = scaling.ntk_base(d, base, s)
        label = f"s = {s:g} (base {new_base:,.0f})"
        curves.append((label, scaling.wavelengths(theta), theta / freq))
    title = f"NTK-aware on {name}: a larger base"
    return _curves(theme, title, curves, [L0], max(factors))


def dynamic_family(name: str, factor: float, lengths: tuple, *, theme: str):
    """Dynamic NTK (HF 'dynamic') of one model as the sequence grows."""
    model = models.get(name)
    d, base, L0 = model.rotary_dim, model.rope_theta, model.max_position_embeddings
    theta = rope.inv_freq(d, base)
    curves, top = [], 1.0
    for length in lengths:
        freq, _ = scaling.dynamic_ntk(
            d, base, factor=factor, max_position_embeddings=L0, seq_len=length
        )
        curves.append(
            (f"at {length:,} tokens", scaling.wavelengths(theta), theta / freq)
        )
        top = max(top, float((theta / freq).max()))
    title = f"Dynamic NTK on {name}, factor {factor:g}"
    return _curves(theme, title, curves, [L0], top)


def longrope_lists(name: str, *, theme: str):
    """LongRoPE: a model's searched short and long factor lists, per pair."""
    model = models.get(name)
    short = part2_extension.model_scale_factors(model, seq_len=None)
    long = part2_extension.model_scale_factors(
        model, seq_len=model.max_position_embeddings
    )
    wavelength = _wavelengths(model.rotary_dim, model.rope_theta)
    ceiling = part2_extension.context_ceiling(model)
    curves = [
        ("long_factor (past L₀)", wavelength, long),
        ("short_factor (up to L₀)", wavelength, short),
        (
            f"PI at s = {ceiling.factor:g}",
            wavelength,
            np.full(len(long), ceiling.factor),
        ),
    ]
    return _curves(
        theme,
        f"LongRoPE factors of {name}",
        curves,
        [ceiling.original],
        float(long.max()),
    )


def ramp_comparison(name: str, *, theme: str):
    """Weight kept on theta_i by Llama 3.1's rule, YaRN's gamma(r) and HF yarn."""
    model = models.get(name)
    ramps = part2_extension.ramp_comparison(model)
    curves = [
        ("llama3", "Llama 3.1 (config rule)"),
        ("yarn_paper", "YaRN paper γ(r), α = 1, β = 32"),
        ("yarn_hf", "Hugging Face yarn (linear in pair index)"),
    ]
    with themed(theme):
        fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
        for k, (key, label) in enumerate(curves):
            ax.plot(ramps["turns"], ramps[key], marker=MARKERS[k], markersize=3.5,
                    linewidth=1.6, color=data_colour(k), label=label)  # fmt: skip
        ax.set_xscale("log")
        ax.set_xlim(0.3, 100)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("turns within the original length, r = L₀ / λ (log)")
        ax.set_ylabel("weight on the original θ")
        ax.set_title(f"Three ramps at {name}'s settings", fontsize=11)
        ax.grid(True, which="major", alpha=0.6)
        fig.legend(loc="outside lower center", ncols=2, fontsize=9)
    return fig


OVERVIEW_SLUG = "part2_extension-methods-overview"  # the widget's fallback
FIGURES = [
    FigureSpec(
        slug="part2_extension-pair-wavelengths",
        draw=pair_wavelengths,
        params={"names": ("Llama-2-7B", "Llama-3-8B")},
        alt=(
            "Wavelength of each of the 64 rotary pairs of Llama 2 7B and Llama 3 8B "
            "on a log scale, rising from about 6 tokens at pair 0. Filled dots mark "
            "pairs whose wavelength is below the training length (dashed lines at "
            "4,096 and 8,192); hollow dots, the slow pairs above it, which never "
            "complete a turn during training."
        ),
    ),
    FigureSpec(
        slug=OVERVIEW_SLUG,
        draw=methods_overview,
        params={"name": "Llama-2-7B", "factor": 4.0},
        alt=(
            "Slow-down of each rotary pair against its wavelength for Llama 2 7B "
            "stretched four times. PI is a flat line at 4. NTK-aware rises smoothly "
            "from 1 to 4. YaRN and Llama 3.1 scaling stay at 1 for short wavelengths, "
            "ramp up below the training length of 4,096 and are at 4 beyond it."
        ),
    ),
    FigureSpec(
        slug="part2_extension-scale-linear",
        draw=model_curves,
        params={"names": ("Vicuna-7B-v1.5-16k",), "title": "PI in a published config"},
        alt=(
            "Per-pair slow-down for Vicuna 7B v1.5 16k, which uses linear position "
            "interpolation with factor 4: every pair, short or long wavelength, is "
            "slowed by exactly 4, a flat line across the plot."
        ),
    ),
    FigureSpec(
        slug="part2_extension-scale-ntk",
        draw=ntk_family,
        params={"name": "Llama-2-7B", "factors": (2.0, 4.0, 8.0)},
        alt=(
            "NTK-aware scaling of Llama 2 7B for factors 2, 4 and 8: each curve "
            "starts at 1 for the fastest pair and rises steadily with wavelength, "
            "reaching the factor only at the slowest pair."
        ),
    ),
    FigureSpec(
        slug="part2_extension-scale-dynamic",
        draw=dynamic_family,
        params={"name": "Llama-2-7B", "factor": 2.0, "lengths": (8192, 16384, 32768)},
        alt=(
            "Dynamic NTK on Llama 2 7B with factor 2 at sequence lengths 8,192, "
            "16,384 and 32,768: three NTK-style curves, each steeper than the last, "
            "ending at 3, 7 and 15 for the slowest pair."
        ),
    ),
    FigureSpec(
        slug="part2_extension-scale-yarn",
        draw=model_curves,
        params={
            "names": ("Qwen2.5-7B-Instruct", "DeepSeek-V3"),
            "title": "YaRN in published configs",
        },
        alt=(
            "YaRN per-pair slow-down for Qwen2.5 7B (factor 4, original length "
            "32,768) and DeepSeek V3 (factor 40, original length 4,096): flat at 1 "
            "for short wavelengths, a ramp, then flat at the factor for wavelengths "
            "beyond each original length."
        ),
    ),
    FigureSpec(
        slug="part2_extension-scale-longrope",
        draw=longrope_lists,
        params={"name": "Phi-3-mini-128k-instruct"},
        alt=(
            "LongRoPE factors of Phi-3 mini 128k per pair: the long list climbs "
            "from about 1 to about 65, crossing the PI line at 32 for wavelengths "
            "near 200 tokens; the short list stays between 1 and about 3."
        ),
    ),
    FigureSpec(
        slug="part2_extension-scale-llama3",
        draw=model_curves,
        params={
            "names": ("Llama-3.1-8B", "Llama-3.2-1B"),
            "title": "Llama 3.1 scaling in published configs",
        },
        alt=(
            "Llama 3.1 scaling of Llama 3.1 8B (factor 8) and Llama 3.2 1B (factor "
            "32): pairs with wavelength under 2,048 keep slow-down 1, pairs beyond "
            "the original 8,192 get the full factor, with a smooth blend between."
        ),
    ),
    FigureSpec(
        slug="part2_extension-ramp-comparison",
        draw=ramp_comparison,
        params={"name": "Llama-3.1-8B"},
        alt=(
            "Weight each rule keeps on a pair's original frequency (0 to 1) "
            "against the pair's turns within 8,192 tokens, on a log axis, at "
            "Llama 3.1's settings. All three are 0 below 1 turn. Llama 3.1's rule "
            "curves up to 1 at 4 turns and the YaRN paper's gamma curves up to 1 "
            "at 32 turns (both linear in the turns, so bowed on the log axis); "
            "Hugging Face's yarn is a straight line from about 1 to about 32 "
            "turns (its end pairs rounded outwards), linear in the pair index."
        ),
    ),
]


def context_extension_start() -> dict:
    """Start values of the context-extension explorer: its fallback figure's model."""
    params = next(s.params for s in FIGURES if s.slug == OVERVIEW_SLUG)
    model = models.get(params["name"])
    return {
        "d": model.rotary_dim,
        "base": model.rope_theta,
        "training-length": model.max_position_embeddings,
        "factor": params["factor"],
    }


WIDGETS = {"context-extension": context_extension_start}
