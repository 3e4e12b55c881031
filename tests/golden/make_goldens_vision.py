#!/usr/bin/python3
"""PyTorch goldens for the vision ops and the small ViT, written to tests/golden/vision/*.json.

Each file holds a list of cases: argument values, shapes and flattened float lists (row-major). Inputs are
drawn with a fixed torch seed, so reruns give the same files. Computation is PyTorch's own (float64 where
PyTorch supports it, then rounded to float32) through torch.nn.functional: conv2d, layer_norm, group_norm,
batch_norm, max_pool2d, avg_pool2d, interpolate, pad, mm/bmm/addmm, and attention as
softmax(q k^T * scale + mask) v (torch 1.13 has no F.scaled_dot_product_attention); rows whose mask is all
-inf give NaN in PyTorch and are stored as 0 (wgrt's defined behaviour).

ViT: a timm-style pre-LN ViT forward (patch conv, class token, learned position embeddings, blocks of
LN -> MHSA -> residual -> LN -> MLP(GELU) -> residual, final LN) with weights from a deterministic xorshift32
generator that tests/models/vit_test.cpp reimplements (so no weights are stored), see vit_weights().
Run: /usr/bin/python3 tests/golden/make_goldens_vision.py
"""
import json
import math
import os

import numpy  # noqa: F401  (float32 shortest repr via tensor.numpy())
import torch
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vision")


def flat(t):
    # float32 values written with their shortest round-trip decimal form (small files, exact in C++).
    return [float(str(x)) for x in t.detach().reshape(-1).to(torch.float32).numpy()]


def rnd(*shape, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, dtype=torch.float32) * (hi - lo) + lo)


def conv_cases():
    cases = []
    specs = [
        # N, C, H, W, O, kh, kw, stride, padding, dilation, groups, bias
        (2, 3, 9, 7, 5, 3, 3, [2, 2], [1, 1], [1, 1], 1, True),
        (1, 4, 8, 6, 4, 3, 3, [1, 1], [2, 2], [2, 2], 4, False),
        (1, 6, 5, 5, 4, 2, 3, [1, 2], [1, 0], [1, 1], 2, True),
        (1, 3, 16, 16, 4, 8, 8, [8, 8], [0, 0], [1, 1], 1, True),
        (1, 5, 7, 9, 70, 3, 1, [1, 1], [1, 0], [1, 1], 1, False),
    ]
    for N, C, H, W, O, kh, kw, st, pad, dil, g, has_b in specs:
        x = rnd(N, C, H, W)
        w = rnd(O, C // g, kh, kw) * 0.5
        b = rnd(O) if has_b else None
        y = F.conv2d(x.double(), w.double(), b.double() if has_b else None, st, pad, dil, g)
        cases.append({"x_dims": [N, C, H, W], "w_dims": [O, C // g, kh, kw], "stride": st, "padding": pad,
                      "dilation": dil, "groups": g, "x": flat(x), "w": flat(w), "b": flat(b) if has_b else [],
                      "out_dims": list(y.shape), "out": flat(y)})
    return cases


def norm_cases():
    ln = []
    x = rnd(3, 5, 7) * 3 + 1
    w, b = rnd(7) + 1, rnd(7)
    ln.append({"x_dims": [3, 5, 7], "shape": [7], "eps": 1e-5, "x": flat(x), "w": flat(w), "b": flat(b),
               "out": flat(F.layer_norm(x.double(), [7], w.double(), b.double(), 1e-5))})
    ln.append({"x_dims": [3, 5, 7], "shape": [5, 7], "eps": 1e-6, "x": flat(x), "w": [], "b": [],
               "out": flat(F.layer_norm(x.double(), [5, 7], None, None, 1e-6))})
    gn = []
    x = rnd(2, 6, 3, 5) * 2
    w, b = rnd(6) + 1, rnd(6)
    gn.append({"x_dims": [2, 6, 3, 5], "groups": 3, "eps": 1e-5, "x": flat(x), "w": flat(w), "b": flat(b),
               "out": flat(F.group_norm(x.double(), 3, w.double(), b.double(), 1e-5))})
    bn = []
    x = rnd(2, 3, 4, 5) * 2
    w, b, m, v = rnd(3) + 1, rnd(3), rnd(3), rnd(3, lo=0.5, hi=2.0)
    bn.append({"x_dims": [2, 3, 4, 5], "eps": 1e-5, "x": flat(x), "w": flat(w), "b": flat(b), "mean": flat(m),
               "var": flat(v),
               "out": flat(F.batch_norm(x.double(), m.double(), v.double(), w.double(), b.double(), False, 0.1, 1e-5))})
    return {"layer_norm": ln, "group_norm": gn, "batch_norm": bn}


def pool_cases():
    out = []
    x = rnd(2, 3, 9, 8)
    for k, s, p, d, ceil in [(3, 2, 1, 1, False), (3, 2, 1, 1, True), (2, 2, 0, 1, True), (3, 1, 1, 2, False)]:
        y = F.max_pool2d(x, k, s, p, d, ceil_mode=ceil)
        out.append({"op": "max", "x_dims": [2, 3, 9, 8], "k": k, "s": s, "p": p, "d": d, "ceil": ceil, "x": flat(x),
                    "out_dims": list(y.shape), "out": flat(y)})
    for k, s, p, ceil, cip, div in [(3, 2, 1, True, False, None), (3, 2, 1, False, True, None), (2, 3, 1, True, True, None),
                                    (3, 2, 0, False, True, 5)]:
        y = F.avg_pool2d(x.double(), k, s, p, ceil, cip, div)
        out.append({"op": "avg", "x_dims": [2, 3, 9, 8], "k": k, "s": s, "p": p, "ceil": ceil, "cip": cip,
                    "div": div if div else 0, "x": flat(x), "out_dims": list(y.shape), "out": flat(y)})
    return out


def resample_cases():
    out = []
    x = rnd(1, 2, 5, 7)
    for size in [(8, 10), (3, 4), (10, 14)]:
        y = F.interpolate(x, size=size, mode="nearest")
        out.append({"mode": "nearest", "x_dims": [1, 2, 5, 7], "size": list(size), "scale": 0, "x": flat(x),
                    "out_dims": list(y.shape), "out": flat(y)})
    y = F.interpolate(x, scale_factor=3.0, mode="nearest")
    out.append({"mode": "nearest", "x_dims": [1, 2, 5, 7], "size": [], "scale": 3.0, "x": flat(x), "out_dims": list(y.shape),
                "out": flat(y)})
    for size, align in [((8, 11), True), ((8, 11), False), ((4, 5), False), ((1, 3), True)]:
        y = F.interpolate(x.double(), size=size, mode="bilinear", align_corners=align)
        out.append({"mode": "bilinear", "align": align, "x_dims": [1, 2, 5, 7], "size": list(size), "scale": 0,
                    "x": flat(x), "out_dims": list(y.shape), "out": flat(y)})
    y = F.interpolate(x.double(), scale_factor=2.0, mode="bilinear", align_corners=False)
    out.append({"mode": "bilinear", "align": False, "x_dims": [1, 2, 5, 7], "size": [], "scale": 2.0, "x": flat(x),
                "out_dims": list(y.shape), "out": flat(y)})
    return out


def misc_cases():
    x = rnd(2, 3, 4)
    pads = []
    for pad, val in [([1, 2, 0, 1], 1.5), ([-1, 1], 0.0), ([2, 0, 1, 1, 1, 0], -2.0)]:
        y = F.pad(x, pad, value=val)
        pads.append({"x_dims": [2, 3, 4], "pad": pad, "value": val, "x": flat(x), "out_dims": list(y.shape), "out": flat(y)})
    mm = []
    a, b = rnd(5, 7), rnd(7, 3)
    mm.append({"op": "mm", "a_dims": [5, 7], "b_dims": [7, 3], "a": flat(a), "b": flat(b), "out": flat(a.double() @ b.double())})
    a, b = rnd(3, 5, 70), rnd(3, 70, 9)
    mm.append({"op": "bmm", "a_dims": [3, 5, 70], "b_dims": [3, 70, 9], "a": flat(a), "b": flat(b),
               "out": flat(torch.bmm(a.double(), b.double()))})
    a, b = rnd(5, 7), rnd(7, 4)
    for bd in [[4], [5, 1], [5, 4]]:
        c = rnd(*bd)
        mm.append({"op": "addmm", "a_dims": [5, 7], "b_dims": [7, 4], "bias_dims": bd, "beta": 0.5, "alpha": 2.0,
                   "a": flat(a), "b": flat(b), "bias": flat(c),
                   "out": flat(torch.addmm(c.double(), a.double(), b.double(), beta=0.5, alpha=2.0))})
    conv = []
    x = torch.tensor([-2.7, -2.5, -0.5, 0.0, 0.49, 1.5, 2.9999, 1e6, -7.25])
    conv.append({"x": flat(x), "out": [int(v) for v in x.to(torch.int32).tolist()]})
    return {"constant_pad": pads, "matmul": mm, "to_copy": conv}


def attention(q, k, v, mask, scale):
    s = (q.double() @ k.double().transpose(-1, -2)) * scale
    if mask is not None:
        s = s + mask.double()
    p = torch.softmax(s, dim=-1)
    o = p @ v.double()
    return torch.nan_to_num(o, nan=0.0)


def sdpa_cases():
    out = []
    B, H, Sq, Skv, D = 2, 3, 5, 9, 8
    q, k, v = rnd(B, H, Sq, D), rnd(B, H, Skv, D), rnd(B, H, Skv, D)
    mask = torch.zeros(B, 1, Sq, Skv)
    mask[0, 0, 1, 3:] = float("-inf")
    mask[1, 0, 2, :] = float("-inf")  # a fully masked row
    mask[1, 0, 4, ::2] = float("-inf")
    mask[:, :, 0, 0] = -1.5
    out.append({"q_dims": [B, H, Sq, D], "k_dims": [B, H, Skv, D], "v_dims": [B, H, Skv, D], "mask_dims": [B, 1, Sq, Skv],
                "scale": None, "q": flat(q), "k": flat(k), "v": flat(v),
                "mask": [x if math.isfinite(x) else "-inf" for x in mask.reshape(-1).tolist()],
                "out": flat(attention(q, k, v, mask, 1 / math.sqrt(D)))})
    B, H, Sq, Skv, D, Dv = 1, 2, 7, 4, 16, 6
    q, k, v = rnd(B, H, Sq, D), rnd(B, H, Skv, D), rnd(B, H, Skv, Dv)
    out.append({"q_dims": [B, H, Sq, D], "k_dims": [B, H, Skv, D], "v_dims": [B, H, Skv, Dv], "mask_dims": [],
                "scale": 0.3, "q": flat(q), "k": flat(k), "v": flat(v), "mask": [],
                "out": flat(attention(q, k, v, None, 0.3))})
    return out


# ---- ViT ----
def xorshift_stream(seed, n):
    x = (seed * 2654435761) & 0xFFFFFFFF | 1
    vals = []
    for _ in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        vals.append((x >> 8) * (2.0 ** -24) * 2.0 - 1.0)
    return torch.tensor(vals, dtype=torch.float32)


def vit_shapes(c):
    W, M, p, T = c["width"], c["mlp"], c["patch"], c["tokens"]
    s = [("patch_embed.proj.weight", [W, 3, p, p]), ("patch_embed.proj.bias", [W])]
    if c["class_token"]:
        s.append(("cls_token", [1, 1, W]))
    s.append(("pos_embed", [1, T, W]))
    for i in range(c["depth"]):
        b = f"blocks.{i}."
        s += [(b + "norm1.weight", [W]), (b + "norm1.bias", [W]), (b + "attn.qkv.weight", [3 * W, W]),
              (b + "attn.qkv.bias", [3 * W]), (b + "attn.proj.weight", [W, W]), (b + "attn.proj.bias", [W]),
              (b + "norm2.weight", [W]), (b + "norm2.bias", [W]), (b + "mlp.fc1.weight", [M, W]), (b + "mlp.fc1.bias", [M]),
              (b + "mlp.fc2.weight", [W, M]), (b + "mlp.fc2.bias", [W])]
    s += [("norm.weight", [W]), ("norm.bias", [W])]
    return s


def vit_weights(c):
    # Tensor i of vit_shapes() takes the xorshift stream seeded 1000 + i; layer-norm weights are 1 + u/4,
    # everything else u/8, u uniform in [-1, 1) on a 2^-23 grid (exact in float32).
    w = {}
    for i, (name, shape) in enumerate(vit_shapes(c)):
        u = xorshift_stream(1000 + i, math.prod(shape)).reshape(shape)
        is_ln = "norm" in name and name.endswith(".weight")
        w[name] = 1.0 + u * 0.25 if is_ln else u * 0.125
    return w


def vit_forward(c, w, x):
    W, H, p = c["width"], c["heads"], c["patch"]
    d = {k: v.double() for k, v in w.items()}
    x = x.double()
    t = F.conv2d(x, d["patch_embed.proj.weight"], d["patch_embed.proj.bias"], stride=p)  # [B, W, g, g]
    B = t.shape[0]
    t = t.flatten(2).transpose(1, 2)  # [B, g*g, W]
    if c["class_token"]:
        t = torch.cat([d["cls_token"].expand(B, -1, -1), t], dim=1)
    t = t + d["pos_embed"]
    T = t.shape[1]
    for i in range(c["depth"]):
        b = f"blocks.{i}."
        h = F.layer_norm(t, [W], d[b + "norm1.weight"], d[b + "norm1.bias"], c["eps"])
        qkv = F.linear(h, d[b + "attn.qkv.weight"], d[b + "attn.qkv.bias"]).reshape(B, T, 3, H, W // H).permute(2, 0, 3, 1, 4)
        a = attention(qkv[0], qkv[1], qkv[2], None, 1 / math.sqrt(W // H)).transpose(1, 2).reshape(B, T, W)
        t = t + F.linear(a, d[b + "attn.proj.weight"], d[b + "attn.proj.bias"])
        h = F.layer_norm(t, [W], d[b + "norm2.weight"], d[b + "norm2.bias"], c["eps"])
        h = F.gelu(F.linear(h, d[b + "mlp.fc1.weight"], d[b + "mlp.fc1.bias"]), approximate=c["gelu"])
        t = t + F.linear(h, d[b + "mlp.fc2.weight"], d[b + "mlp.fc2.bias"])
    return F.layer_norm(t, [W], d["norm.weight"], d["norm.bias"], c["eps"])


def vit_cases():
    out = []
    for c in [
        dict(image=32, patch=16, width=64, depth=2, heads=4, mlp=256, class_token=True, gelu="none", eps=1e-6, batch=1),
        dict(image=24, patch=8, width=48, depth=2, heads=3, mlp=96, class_token=False, gelu="tanh", eps=1e-6, batch=2),
    ]:
        g = c["image"] // c["patch"]
        c["tokens"] = g * g + (1 if c["class_token"] else 0)
        w = vit_weights(c)
        x = xorshift_stream(7, c["batch"] * 3 * c["image"] ** 2).reshape(c["batch"], 3, c["image"], c["image"])
        y = vit_forward(c, w, x)
        out.append({"config": c, "pixel_seed": 7, "out_dims": list(y.shape), "out": flat(y)})
    return out


def main():
    torch.manual_seed(1234)
    os.makedirs(OUT, exist_ok=True)
    files = {"conv.json": conv_cases(), "norm.json": norm_cases(), "pool.json": pool_cases(),
             "resample.json": resample_cases(), "misc.json": misc_cases(), "sdpa.json": sdpa_cases(),
             "vit.json": vit_cases()}
    for name, data in files.items():
        path = os.path.join(OUT, name)
        with open(path, "w") as f:
            json.dump(data, f, separators=(",", ":"))
        print(name, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
