import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_docs import sinusoidal as sn
from tests._training import adam_losses

widths = st.integers(1, 64).map(lambda h: 2 * h)
positions = st.integers(0, 100_000)
bases = st.floats(2.0, 1e6)
fast = settings(max_examples=60, deadline=None)


def paper_value(pos: int, dim: int, d: int, base: float = 10000.0) -> float:
    """One entry straight from the paper's two formulas, scalar math only."""
    i = dim // 2
    angle = pos / base ** (2 * i / d)
    return math.sin(angle) if dim % 2 == 0 else math.cos(angle)


@fast
@given(pos=positions, d=widths, base=bases)
def test_encode_matches_the_papers_formula(pos, d, base):
    expected = [paper_value(pos, dim, d, base) for dim in range(d)]
    np.testing.assert_allclose(sn.encode(pos, d, base), expected, atol=1e-9)


def test_d8_rows_match_hand_computation():
    # divisors 1, 10, 100, 1000 at d = 8
    row = sn.encode(1, 8)
    assert row[0] == pytest.approx(math.sin(1)) and row[1] == pytest.approx(math.cos(1))
    assert row[6] == pytest.approx(math.sin(1e-3)) and row[7] == pytest.approx(
        math.cos(1e-3)
    )
    np.testing.assert_allclose(sn.table(3, 8)[2], sn.encode(2, 8))


@fast
@given(a=positions, b=positions, k=st.integers(-500, 500), d=widths, base=bases)
def test_dot_product_depends_only_on_offset(a, b, k, d, base):
    at_a = sn.encode(a, d, base) @ sn.encode(a + k, d, base)
    at_b = sn.encode(b, d, base) @ sn.encode(b + k, d, base)
    assert at_a == pytest.approx(at_b, abs=1e-6)
    assert at_a == pytest.approx(sn.offset_similarity(k, d, base), abs=1e-6)


@fast
@given(pos=positions, k=st.integers(-1000, 1000), d=widths, base=bases)
def test_shift_matrix_maps_pos_to_pos_plus_k(pos, k, d, base):
    moved = sn.shift_matrix(k, d, base) @ sn.encode(pos, d, base)
    np.testing.assert_allclose(moved, sn.encode(pos + k, d, base), atol=1e-6)


@fast
@given(k=st.integers(-1000, 1000), d=widths)
def test_shift_matrix_is_a_rotation(k, d):
    m = sn.shift_matrix(k, d)
    np.testing.assert_allclose(m @ m.T, np.eye(d), atol=1e-12)


def test_no_per_dimension_scalar_map_exists():
    # A diagonal map would need PE(1)/PE(0) == PE(2)/PE(1) in every dimension.
    rows = sn.table(3, 8)
    with np.errstate(divide="ignore", invalid="ignore"):
        assert not np.allclose(rows[1] / rows[0], rows[2] / rows[1], equal_nan=False)


def test_self_similarity_is_half_the_width():
    assert sn.offset_similarity(0, 8) == pytest.approx(4.0)


def test_wavelengths():
    lam = sn.wavelengths(8)
    np.testing.assert_allclose(lam, [2 * math.pi * 10**e for e in range(4)])
    assert sn.wavelengths(512)[-1] == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert sn.wavelengths(512)[-1] < 2 * math.pi * 10000


@fast
@given(n=st.integers(1, 50), d=widths, offset=st.integers(0, 3000))
def test_torch_module_equals_numpy(n, d, offset):
    x = torch.zeros(2, n, d, dtype=torch.float64)
    module = sn.SinusoidalPositionalEncoding(d, max_len=16)
    out = module(x, offset=offset)
    expected = sn.encode(np.arange(offset, offset + n), d)
    np.testing.assert_allclose(out[1].numpy(), expected, atol=1e-6)


@pytest.mark.parametrize(
    ("call", "word"),
    [
        (lambda: sn.encode(0, 7), "d must"),
        (lambda: sn.encode(0, 0), "d must"),
        (lambda: sn.encode(0, -4), "d must"),
        (lambda: sn.encode(0, 8, base=1.0), "base"),
        (lambda: sn.table(-1, 8), "n_positions"),
        (lambda: sn.wavelengths(3), "d must"),
        (lambda: sn.SinusoidalPositionalEncoding(9), "d must"),
        (
            lambda: sn.SinusoidalPositionalEncoding(8)(torch.zeros(1, 2, 6)),
            "x must have last dim 8",
        ),
    ],
)
def test_bad_input_is_named(call, word):
    with pytest.raises(ValueError, match=word):
        call()


def test_gradcheck_wrt_x_float64_across_the_tables_end():
    module = sn.SinusoidalPositionalEncoding(8, max_len=4)
    x = torch.randn(2, 3, 8, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: module(t, offset=2), (x,))
    assert module.pe.shape == (4, 8)  # offset 2 + T 3 > max_len 4: rows computed


def test_decoding_past_max_len_computes_only_the_rows_it_needs_in_the_tables_dtype():
    """One token at a time from position 4 to 99, then one at 200,000: each row
    is computed for its call (a step at 200,000 built a 200,001-row table, 1.5 GB
    at d = 512), equal to `encode`, in the dtype .half() gave the table; the
    result trains."""
    module = sn.SinusoidalPositionalEncoding(8, max_len=4).half()
    with torch.inference_mode():
        for offset in (*range(4, 100), 200_000):
            out = module(torch.zeros(1, 1, 8, dtype=torch.float16), offset=offset)
            want = sn.encode(np.array([offset]), 8)
            np.testing.assert_allclose(out[0].float(), want, atol=1e-3)
    assert module.pe.shape == (4, 8) and module.pe.dtype == torch.float16
    x = torch.zeros(1, 3, 8, dtype=torch.float16, requires_grad=True)
    module(x, offset=97).sum().backward()
    assert x.grad is not None and torch.all(x.grad == 1)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_in_half_precision_out(dtype):
    x = torch.randn(2, 5, 8)
    out = sn.SinusoidalPositionalEncoding(8)(x.to(dtype), offset=3)
    assert out.dtype == dtype
    expected = x.double() + torch.from_numpy(sn.encode(np.arange(3, 8), 8))
    torch.testing.assert_close(out.double(), expected, atol=0.02, rtol=0.01)


def test_tiny_model_with_default_arguments_learns_to_read_positions():
    """Tokens are all the same; the target is the position, so only PE can help."""
    torch.manual_seed(0)
    T, d = 12, 16
    model = torch.nn.Sequential(
        torch.nn.Linear(1, d), sn.SinusoidalPositionalEncoding(d), torch.nn.Linear(d, T)
    )
    tokens, targets = torch.ones(4, T, 1), torch.arange(T).repeat(4)

    def loss():
        return torch.nn.functional.cross_entropy(model(tokens).reshape(-1, T), targets)

    losses = adam_losses(model.parameters(), loss, steps=30, lr=0.05)
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize("offset", [0, 10, 15])
def test_float64_input_gets_the_float64_table(offset):
    """From an engineer's review: float64 x got the float32 table (3e-8 off), and
    after .double() position 15 had two values, from the table and past it."""
    module = sn.SinusoidalPositionalEncoding(64, max_len=16)
    expected = torch.from_numpy(sn.table(offset + 5, 64)[offset:])  # (5, 64)
    x = torch.zeros(1, 5, 64, dtype=torch.float64)
    for _ in range(2):  # the float32 module, then the same module after .double()
        out = module(x, offset=offset)
        assert out.dtype == torch.float64
        torch.testing.assert_close(out[0], expected, rtol=0, atol=1e-15)
        module.double()


def test_a_table_built_on_meta_is_real_after_to_empty():
    """From an engineer's review: built under torch.device("meta") the table was
    made on the CPU anyway, and `to_empty` left it uninitialised (outputs of
    1e38) with a strict `load_state_dict` reporting success: nothing is saved."""
    with torch.device("meta"):
        module = sn.SinusoidalPositionalEncoding(64, max_len=32)
    assert module.pe.is_meta
    module.to_empty(device="cpu")
    assert module.load_state_dict({}, strict=True)  # the table is not in checkpoints
    expected = torch.from_numpy(sn.table(32, 64)).float()
    torch.testing.assert_close(module.pe, expected, rtol=0, atol=0)
    module.half().to_empty(device="cpu")
    assert module.pe.dtype == torch.float16
    torch.testing.assert_close(module.pe, expected.half(), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_torch_compile_fullgraph_runs_past_max_len(dtype):
    """A compiled decoding loop past the table: its rows came from NumPy, which a
    graph cannot call ("Unsupported ndarray attribute access" under fullgraph);
    they are computed in torch ops there, equal to `encode` to a few ulps."""
    if not hasattr(torch, "compile"):
        pytest.skip("torch.compile is unavailable in this torch build")
    module = sn.SinusoidalPositionalEncoding(8, max_len=4)
    compiled = torch.compile(module, fullgraph=True, backend="eager")
    x = torch.zeros(1, 3, 8, dtype=dtype)
    for offset in (0, 1, 3, 10, 4000):
        expected = sn.encode(np.arange(offset, offset + 3), 8)  # (3, 8) float64
        got = compiled(x, offset)[0].double().numpy()
        tol = 1e-6 if dtype == torch.float32 else 1e-13
        np.testing.assert_allclose(got, expected, rtol=0, atol=tol)


def test_module_adds_the_table_of_its_base():
    """The module was compared with NumPy at the default base only (a mutation
    audit): at base 100, PE[p, 2i] = sin(p / 100^(2i/d)), PE[p, 2i+1] = cos, past
    the cached rows too."""
    d, base = 6, 100.0
    module = sn.SinusoidalPositionalEncoding(d, base=base, max_len=4)
    got = module(torch.zeros(1, 3, d, dtype=torch.float64), offset=2)[0]
    for t, row in enumerate(got.tolist()):
        for i in range(d // 2):
            angle = (2 + t) / base ** (2 * i / d)
            assert row[2 * i] == pytest.approx(math.sin(angle), abs=1e-7)
            assert row[2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-7)
