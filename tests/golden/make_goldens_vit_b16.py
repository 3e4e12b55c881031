#!/usr/bin/python3
"""PyTorch golden for the full-size ViT-B/16 encoder, written to tests/golden/vision/vit_b16.json.

Config: wgrt's VitConfig::vit_b16() (src/models/vit_graph.cpp): image 224, patch 16, width 768, depth 12,
12 heads, MLP 3072, class token, learned position embeddings, pre-LN blocks, final LayerNorm, eps 1e-6,
erf GELU. The forward is make_goldens_vision.py's vit_forward (timm VisionTransformer layout), in float64.

Weights (86.6M values) are not stored: both this script and tests/models/vit_b16_test.cpp generate them
with a counter-based hash, vectorised here with numpy (an xorshift stream as in make_goldens_vision.py is
sequential and far too slow in Python at this size):
  key = lowbias32(seed); x_i = lowbias32(lowbias32(i) ^ key); u_i = (x_i >> 8) * 2^-23 - 1 in [-1, 1)
(lowbias32: Chris Wellons' 32-bit integer hash; u is exact in float32). Tensor k of vit_shapes() uses seed
1000 + k and is scaled like a real init, in float32 arithmetic (so C++ floats reproduce it bit for bit):
  matrices (patch conv, qkv, proj, fc1, fc2): u * float32(sqrt(3 / fan_in))   (variance 1 / fan_in)
  LayerNorm weights: 1 + 0.1 * u;   everything else (biases, cls_token, pos_embed): 0.1 * u.
Pixels: the same hash with seed 7, shape [1, 3, 224, 224], values u.

Stored (compact, not the full [1, 197, 768] output): the class-token row, a seeded sample of 2000 other
feature values with their flat indices, mean / std / max|.| of all features, and per-tensor checks of the
generated weights (float64 sum, first and last value) so the C++ side can prove its generator matches.
Run: /usr/bin/python3 tests/golden/make_goldens_vit_b16.py   (about a minute on 2 cores)
"""
import json
import math
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_goldens_vision import OUT, flat, vit_forward, vit_shapes  # noqa: E402

def lowbias32(x):
    x = np.atleast_1d(np.asarray(x, dtype=np.uint32))
    with np.errstate(over="ignore"):  # uint32 products wrap modulo 2^32, as in C++
        x = x ^ (x >> np.uint32(16))
        x = x * np.uint32(0x7FEB352D)
        x = x ^ (x >> np.uint32(15))
        x = x * np.uint32(0x846CA68B)
        x = x ^ (x >> np.uint32(16))
    return x


def hash_stream(seed, n):
    key = lowbias32(np.uint32(seed))[0]
    x = lowbias32(lowbias32(np.arange(n, dtype=np.uint32)) ^ key)
    return ((x >> np.uint32(8)).astype(np.float32) * np.float32(2.0 ** -23) - np.float32(1.0)).astype(np.float32)


def b16_weights(c):
    w = {}
    for k, (name, shape) in enumerate(vit_shapes(c)):
        u = hash_stream(1000 + k, math.prod(shape))
        is_ln = "norm" in name and name.endswith(".weight")
        matrix = len(shape) >= 2 and name not in ("pos_embed", "cls_token")
        if is_ln:
            v = np.float32(1.0) + np.float32(0.1) * u
        elif matrix:
            v = u * np.float32(math.sqrt(3.0 / (math.prod(shape) // shape[0])))
        else:
            v = np.float32(0.1) * u
        assert v.dtype == np.float32
        w[name] = torch.from_numpy(v.reshape(shape))
    return w


def main():
    torch.set_num_threads(os.cpu_count() or 1)
    c = dict(image=224, patch=16, width=768, depth=12, heads=12, mlp=3072, class_token=True, gelu="none", eps=1e-6,
             batch=1)
    g = c["image"] // c["patch"]
    c["tokens"] = g * g + 1
    t0 = time.time()
    w = b16_weights(c)
    checks = {name: [float(v.double().sum()), float(v.reshape(-1)[0]), float(v.reshape(-1)[-1])] for name, v in w.items()}
    x = torch.from_numpy(hash_stream(7, 3 * 224 * 224).reshape(1, 3, 224, 224))
    t1 = time.time()
    with torch.no_grad():
        y = vit_forward(c, w, x)  # float64 throughout
    t2 = time.time()
    feats = y.reshape(-1)
    W = c["width"]
    rng = np.random.default_rng(20240601)
    idx = np.sort(rng.choice(np.arange(W, feats.numel()), size=2000, replace=False)).tolist()
    out = {
        "config": c,
        "pixel_seed": 7,
        "out_dims": list(y.shape),
        "cls": flat(y[0, 0]),
        "sample_idx": idx,
        "sample": flat(feats[idx]),
        "mean": float(feats.mean()),
        "std": float(feats.std(unbiased=False)),
        "max_abs": float(feats.abs().max()),
        "weight_checks": checks,
        "precision": "float64",
    }
    path = os.path.join(OUT, "vit_b16.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print(f"vit_b16.json {os.path.getsize(path)} bytes; weights+pixels {t1 - t0:.1f} s, forward {t2 - t1:.1f} s; "
          f"mean {out['mean']:.4g} std {out['std']:.4g} max|.| {out['max_abs']:.4g}")


if __name__ == "__main__":
    main()
