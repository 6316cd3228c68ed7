from posenc_docs.pages.pitfalls import yarn_logit_scale
from posenc_docs.scaling import yarn_mscale

print("logit scale measured with each recipe;")
print("intended: g^2")
columns = ("g", "g^2", "cos/sin", "twice", "DeepSeek")
widths = (7, 8, 9, 8, 9)
print(f"{'s':>2}" + "".join(f"{c:>{w}}" for c, w in zip(columns, widths, strict=True)))
for s in (4, 16, 32):
    g = yarn_mscale(s)
    row = [g, g * g]
    row += [yarn_logit_scale(s, r) for r in ("rope", "twice", "deepseek")]
    print(f"{s:>2}" + "".join(f"{v:{w}.4f}" for v, w in zip(row, widths, strict=True)))
