from posenc_docs.pages.pitfalls import yarn_logit_scale
from posenc_docs.scaling import yarn_mscale

print("logit scale measured with each recipe; intended: g^2")
columns = ("g", "g^2", "cos/sin", "twice", "DeepSeek")
print(f"{'s':>3}", *(f"{c:>8}" for c in columns))
for s in (4, 16, 32):
    g = yarn_mscale(s)
    row = [g, g * g]
    row += [yarn_logit_scale(s, r) for r in ("rope", "twice", "deepseek")]
    print(f"{s:>3}", *(f"{v:8.4f}" for v in row))
