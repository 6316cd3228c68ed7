"""Reference implementations of transformer positional encodings.

The library is the top level of this package, one module per idea:
`sinusoidal`, `learned`, `rope`, `alibi`, `scaling` (RoPE context
extension), `partial_rotary`, `mrope` (RoPE over several position axes),
`relative_bias` (T5's bucketed bias), `windows` (sliding windows, local/global
layer patterns, KV caches with sinks), `temperature` (attention scaling with
position, and which layers are NoPE) and `attention` (the attention the
demonstrations use). What is computed on tensors (encodings, rotations, biases,
masks, scales) has a float64 NumPy reference and a PyTorch twin tested equal to
it: a `*_torch` function, or for `sinusoidal` the module
`SinusoidalPositionalEncoding`. `scaling`'s frequencies and the configuration
helpers (weight permutations, position grids, layer patterns, cache positions)
are NumPy or plain Python only, their results given to the torch code as
tensors; `learned` has no NumPy reference: a PyTorch module (its table is
trained) and the function `parameter_count`. `pages`,
`figures`, `examples` and `lab` support the site and are not the library.

Validation policy
-----------------
Scalar and configuration arguments (widths, bases, factors, offsets, head counts,
lengths, `mscale`, `attention_factor`, dtypes, permutations, layouts) are
checked for type, range and finiteness, and rejected with `TypeError` (wrong
kind) or `ValueError` (wrong value) whose message names the argument and the
value it got. Python numbers, NumPy scalars and 0-d tensors are accepted alike
where a number is expected, but not a 0-d tensor that requires grad (`TypeError`:
read as a number, it would not be trained); under `torch.compile(fullgraph=True)`
torch 2.13 fails inside its tracer on reading a 0-d floating tensor's value (an
integer one is read), so pass a Python float there. `bool` and strings are not
numbers, and an integer argument must fit in int64 (checked in eager calls; under
`torch.compile` and `torch.export` an integer may be a symbolic size, so torch's
own checks apply there). Tensor and array data are checked for shape, dtype and
device (floating positions must be float32 or float64, frequencies 16-bit or
wider: narrower floats have rounded them already), but their values are not
scanned (except where a value picks what is read: learned positions against the
table, M-RoPE pair axes): a NaN in a position tensor propagates to the output,
as it would in torch. The NumPy references take integer arrays as data and
compute in float64; the torch twins take floating tensors where the data is
real-valued (an integer x would round the encoding away).
"""

__version__ = "0.1.0"
