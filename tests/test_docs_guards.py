"""Guards on the Markdown sources: code comes from tested files, numbers from macros."""

import re
import runpy
from pathlib import Path

import jinja2
import pytest
from jinja2 import nodes

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").rglob("*.md"))
EXAMPLES_DIR = ROOT / "posenc_docs" / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.rglob("*.py"))
FENCE = re.compile(r"^\s*(```+|~~~+)(.*)$")
ARXIV_ID = r"(?i)arxiv:?\s*\d{4}\.\d{4,5}"  # an identifier, not a number
NOT_PROSE = [r"\{\{.*?\}\}", r"`[^`]*`", r"\$[^$]*\$", r"\]\([^)]*\)", ARXIV_ID]
SNIPPET = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$')


def fences(text: str):
    """Yield (info string, body lines, first line number) for each fenced block."""
    lines, i = text.splitlines(), 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        marker, start, body = opening.group(1), i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(marker):
            body.append(lines[i])
            i += 1
        yield opening.group(2).strip(), body, start
        i += 1


def prose_lines(text: str):
    """Lines outside fences, with macros, inline code, math and link targets removed."""
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            for pattern in NOT_PROSE:
                line = re.sub(pattern, "", line)
            yield number, line


def is_python(info: str) -> bool:
    return bool(re.match(r"\{?\.?(python|py|pycon)\b", info))


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_fences_only_include_tested_files(page):
    for info, body, line in fences(page.read_text()):
        if not is_python(info):
            continue
        code = [b for b in body if b.strip()]
        assert code, f"{page.name}:{line}: empty python fence"
        for entry in code:
            included = SNIPPET.match(entry)
            assert included, f"{page.name}:{line}: inline python: {entry!r}"
            file, _, section = included.group(1).partition(":")
            source = ROOT / file
            assert source.is_file(), f"{page.name}:{line}: no file {file}"
            if section:
                assert f"[start:{section}]" in source.read_text(), (page, section)


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_pasted_decimals_in_prose(page):
    pasted = [
        f"{page.name}:{n}: {line.strip()}"
        for n, line in prose_lines(page.read_text())
        if re.search(r"\d\.\d{3}", line)
    ]
    assert not pasted, "compute these with a macro:\n" + "\n".join(pasted)


def test_the_guards_can_fail():
    bad = "text\n```python\nprint(1)\n```\nIt is 3.5353 here.\n"
    info, body, _ = next(fences(bad))
    assert is_python(info) and not SNIPPET.match(body[0])
    assert any(re.search(r"\d\.\d{3}", line) for _, line in prose_lines(bad))
    ok = "A {{ fixed(x, 4) }}, `1.2345`, $3.14159$, arXiv 2108.12409, "
    ok += "[see](https://arxiv.org/abs/2108.12409)"
    ok += '\n```py\n--8<-- "a.py"\n```'
    assert not any(re.search(r"\d\.\d{3}", line) for _, line in prose_lines(ok))


# An indented line (a list item going on) that opens with a macro and "." or ")"
# becomes a nested ordered list where the macro renders an integer: "17. Of the".
LIST_MARKER = re.compile(r"^\s+\{\{[^}]*\}\}[.)](\s|$)", re.M)


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_macro_can_render_as_a_list_marker(page):
    found = [m.group(0).strip() for m in LIST_MARKER.finditer(page.read_text())]
    assert not found, "keep the macro off the start of the line:\n" + "\n".join(found)


def test_the_list_marker_guard_can_fail():
    bad = "- **A** one bucket gets\n  {{ n + 1 }}. Of the rest\n"
    ok = "- **A** one bucket gets {{ n + 1 }}.\n  Of the rest\n{{ x }}. At top level\n"
    assert LIST_MARKER.findall(bad) and not LIST_MARKER.findall(ok)


MACRO = re.compile(
    r"\{\{(.*?)\}\}|\{%-?\s*(?:set\s+\w+\s*=|for\s+\w+\s+in)(.*?)-?%\}", re.S
)
STRING = re.compile(r'"[^"]*"' + r"|'[^']*'")
PASTED_IN_MACRO = re.compile(r"\d\.\d{3}|\d{7}")  # 3+ decimal places, or a long literal
FORMULA = (nodes.Mul, nodes.Div, nodes.FloorDiv, nodes.Mod, nodes.Pow, nodes.Compare)


def macro_bodies(text: str):
    """The expression of every ``{{ }}``, ``{% set x = ... %}`` and ``{% for %}``."""
    for match in MACRO.finditer(text):
        yield match.group(1) if match.group(1) is not None else match.group(2)


def macro_problems(body: str) -> list:
    """What a macro body does that a named function should do instead."""
    problems = [f"pasted {m}" for m in PASTED_IN_MACRO.findall(STRING.sub("", body))]
    tree = jinja2.Environment().parse("{{ " + body + " }}")
    return problems + [type(node).__name__ for node in tree.find_all(FORMULA)]


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_macros_call_named_functions(page):
    found = [
        f"{' '.join(body.split())[:90]}: {problems}"
        for body in macro_bodies(page.read_text())
        if (problems := macro_problems(body))
    ]
    assert not found, "move into a named pages/ function:\n" + "\n".join(found)


def test_the_macro_guard_can_fail():
    bad = (
        "{{ fixed(x.f(0.02) * 100, 1) }} {% set y = 2.718281828459045 %} {{ (a > 1) }}"
    )
    problems = [p for body in macro_bodies(bad) for p in macro_problems(body)]
    assert problems == ["Mul", "pasted 2.718", "pasted 2818284", "Compare"]
    fine = '{{ count(m.f("1.2345", 512, head=-1) | length) }} {{ a.n - 1 }}'
    assert not [p for body in macro_bodies(fine) for p in macro_problems(body)]


# What each example must print: the claim its page makes with it.
TINY = r"\d\.\de-1[3-7]"  # rounding error
PRINTS = {
    "api/hf_config.py": (  # YaRN's g(4) = 0.1 ln 4 + 1, the full head rotated
        r"64 pairs, attention factor 1\.1386\nrotated q: \(2, 4, 6, 128\)"
    ),
    "lab/source.py": (  # the floor, checked by sampling
        r"entropy rate H\s+1\.2274 [\s\S]*sampled estimate\s+1\.22"
    ),
    "part1/add_position.py": (  # one embedding column, both sentences' inputs
        r"j  embedding  PE\(1\) input1  PE\(3\) input3\n"
        r"(\d( +-?\d\.\d{3}){5}\n){8}\Z"
    ),
    "part1/alibi_growth.py": (  # heads 1..8, as in the paper
        r"\n +1  1/2 [\s\S]*\n +8  1/256\s+-2\.0\s+-195\.3\s+2,560"
    ),
    "part1/clock_periods.py": (
        r"pair 255 \(slowest\):\s+60,611[\s\S]*2 pi base \(no pair\):\s+62,832"
    ),
    "part1/d8_seed_check.py": r"\A(?![\s\S]*DIFFERS)[\s\S]*agrees",
    "part1/d8_worked_example.py": (
        r"\(7\) \. PE\(8\) = 3\.5353\nPE\(30\) \. PE\(31\) = 3\.5353"
    ),
    "part1/far_position.py": (
        r"PE\(2,048\): .* cosine 0\.97\d[\s\S]*PE\(50,000\): .* 0\.1\d\d"
    ),
    "part1/learned_wall.py": r"posenc_docs: IndexError - .*no row for position 1024",
    "part1/nothing_learned.py": (
        r"1,024 x 768 table:\n  sinusoidal\s+0\n  learned\s+786,432\n"
    ),
    "part1/pair_index.py": (
        r"right: (\d\.\d{4}) and \1\n  wrong: (\d\.\d{4}) and (?!\2)"
    ),
    "part1/relative_shift.py": (
        rf"1,429 positions: {TINY}\n[\s\S]*worst error: 0\.9\d\d"
    ),
    "part1/rope_rescale.py": (
        r"no change\s+1\.0000\s+14\s+16\.00x\n.*0\s+1\.00x\n[\s\S]*YaRN\s+1\.0000\s"
        r"+0\s+1\.00x"
    ),
    "part1/shared_space.py": (
        r"positions: +0\.999\n.*std\^2\): 0\.999\n[\s\S]*positions: +0\.3\d\d\n"
        r".*: 0\.333"
    ),
    "part1/three_insertions.py": (
        rf"no position signal\s+{TINY}\n(  .*\de[+-]0[01]\n){{3}}"
    ),
    "part1/word_order.py": (
        r"no positions:\n  largest difference, any word: \d\.\d+e-1[3-7]\n[\s\S]*"
        r"\nsinusoidal positions added:\n  largest difference, any word: 2\.64\n"
    ),
    "part2_basics/alibi_direction.py": (
        rf"causal:\s+False\n  symmetric: True\n[^\n]*\nreversed:\n  symmetric: {TINY}\n"
        rf"  causal: \d\.\de\+00"
    ),
    "part2_basics/alibi_slopes.py": (
        r"12 heads, log2\(m\): \[-1\.0, .*, -8\.0, -0\.5, -1\.5, -2\.5, -3\.5\]"
    ),
    "part2_basics/learned_ceiling.py": (
        r"513 tokens -> IndexError: .*no row for position 512"
    ),
    "part2_basics/permutation.py": (
        rf"original order: ([+-]\d\.\d{{6}})\n.*order: \1\ncausal=False: .*{TINY}"
    ),
    "part2_basics/rope_relative.py": (
        r"\n +5 +2  (\S+)\n +105 +102  \1\n +10005 +10002  \1\n +5 +3  (?!\1)"
    ),
    "part2_basics/sinusoidal_shift.py": (
        r"0\.\.999: \d\.\de-1[0-6][\s\S]*worst error 0\.84"
    ),
    "part2_extension/book_tokens.py": (
        r"= 120,000 tokens[\s\S]*\(ceiling 1,024\): does not fit"
    ),
    "part2_extension/comparison_table.py": (
        r"\| new angles for the slow pairs \(18 of 64 in Llama 2 7B\) \|"
        r"[\s\S]*every distance ≥ 91 shares one bias"  # 8·16^(7/8) = 90.5
    ),
    "part2_extension/context_ceilings.py": (
        r"\| Mistral-7B-v0\.1 \| .* \| 32,768 \| 8,192 \| 4 \(15 within 8,192\) \|\n"
        r"[\s\S]*\| Llama-3\.1-8B \| rope \| 8,192 × 8 = 65,536, but "
        r".* \| 131,072 \| 1 \|[\s\S]*\| Phi-3-mini-128k-instruct \| rope \| "
        r"max_position_embeddings 131,072: no factor, taken as 131,072 ÷ 4,096 = 32 \|"
    ),
    "part2_extension/models_by_scheme.py": (
        r"\| Llama-3\.1-8B \| rope \| rope_theta 500,000, .*scaling: llama3 \|"
        r"[\s\S]*\| Qwen2\.5-7B-Instruct \| .*scaling: yarn, added as the model card"
    ),
    "part2_extension/pi_bound.py": (
        r"= 589\.5 .*\n[\s\S]*least ratio 830 .*\n  0 below 589\.5\n[\s\S]*"
        r"\n  42 below 589\.5, first at offset 4,861"
    ),
    "part2_extension/scaled_models.py": (
        r"Llama-3\.1-8B \[llama3\] s = 8, .*\n  64 pairs: 29 unchanged, 6 in betwe"
        r"en, 29 divided"
    ),
    "part2_extension/turn_census.py": r"pairs 46-63 never do \(18 pairs",
    "pitfalls/alibi_slopes.py": (
        r"differ: 0, worst ratio 1\.0\n[\s\S]*differ: 6, [\s\S]*differ: 12, "
    ),
    "pitfalls/bf16_angles.py": r"1,000\s+1\.99\d\s+\d\.\de-05\s+\d\.\de-03",
    "pitfalls/dynamic_ntk_cache.py": r"256\s+0\.00\s+0%\n\s+512\s+2\.\d\d\s+\d\d%",
    "pitfalls/rope_layout.py": (
        rf"off by\n  38\.2 with the weights as shipped\n  {TINY} with q/k rows permuted"
    ),
    "pitfalls/sincos_layout.py": (
        rf"dot products PE\(p\) \. PE\(q\):  {TINY}\n.*linear layer: {TINY}"
    ),
    "pitfalls/sinusoid_exponent.py": (
        r"paper: spread\s+0\.000, frozen\s+0\n[\s\S]*doubled: spread\s+18\.558, "
        r"frozen 168\n"
    ),
    "pitfalls/article_section08.py": r"Head-0 bias \[0→3\]: -0\.750",
    "part3_base/raised_base.py": r"1,000,000: NTK-aware, s = 93\.06",
    "part3_partial/absorption.py": r"rope on the latent keys .* WRONG",
    "part3_relative/buckets.py": r"bucket 15 holds every distance from 91 on",
    "pitfalls/partial_rotary.py": r"full RoPE over all 96 dims: +3\.4",
    "part3_axes/flattened_grid.py": (
        r"right \(0,0\)-\(0,1\)\s+(\S+)\s+\S+\nwrap  \(0,5\)-\(1,0\)\s+\1\s[\s\S]*"
        r"below \(0,0\)-\(1,0\)\s+\S+\s+(\S+)\nbelow \(2,3\)-\(3,3\)\s+\S+\s+\2\n"
    ),
    "part3_axes/text_image_positions.py": (
        r"w \[0, 1, 2, 3, 4, 2, 3, 4, 5, 6\]\n"
        r"text tokens vs 1-D RoPE: max \|diff\| = 0\.0e\+00"
    ),
    "part3_nope/causal_position.py": (
        r"1 / output - 1\s+: \[0\.0, 1\.0, 2\.0, 3\.0, 4\.0, 5\.0, 6\.0, 7\.0\]"
    ),
    "part3_nope/irope_layers.py": (
        r"NoPE layers \(12 of 48\):\n  \[3, 7, 11, .*\]\n  \[.*, 47\][\s\S]*"
        r"8,190: 1\.0000\n +8,191: 1\.0693"
    ),
    "part3_windows/cache_positions.py": (
        r"step 9  tokens    \[0, 1, 6, 7, 8, 9\]\n\s+positions \[0, 1, 2, 3, 4, 5\]"
        r"[\s\S]*largest query-key offset 4,095"
    ),
    "pitfalls/no_rope_layers.py": r"as HF reads it  : 12[\s\S]*as the name says: 36",
    "pitfalls/sink_positions.py": r"100,000\s+100,000\s+14\s+4,095\s+0",
    "pitfalls/yarn_twice.py": r"32 1\.3466  1\.8133   1\.8133  3\.2879   1\.8133",
}


def test_every_example_has_a_claim_to_print():
    assert set(PRINTS) == {str(p.relative_to(EXAMPLES_DIR)) for p in EXAMPLES}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_example_prints_its_claim(example, capsys):
    runpy.run_path(str(example), run_name="__main__")
    out = capsys.readouterr().out
    claim = PRINTS[str(example.relative_to(EXAMPLES_DIR))]
    assert re.search(claim, out), f"{example.name} no longer prints {claim!r}:\n{out}"
