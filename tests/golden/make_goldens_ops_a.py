#!/usr/bin/python3
"""PyTorch goldens for the part-A ops (rms_norm, linear_q4gsw, softmax, argmax).

Writes tests/golden/ops_a/manifest.json and raw little-endian .bin arrays (f32, or u32 for qweight) next to
it. Run from anywhere with /usr/bin/python3 (needs torch and numpy). Deterministic (fixed seeds).

q4gsw packing is done here independently of the C++ code: per group of G values along K,
scale = max|w| / 7, code = clamp(round(w / scale) + 8, 0, 15); qweight [N, K/8] u32 where element 8w+j of a
row sits in bits 4j..4j+3 of word w (low nibble first); value = (code - 8) * scale.
"""
import json
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops_a")


def save(name, arr, dtype):
    a = np.ascontiguousarray(np.asarray(arr, dtype=dtype))
    a.astype(a.dtype.newbyteorder("<")).tofile(os.path.join(OUT, name))
    return name


def quantize_q4gsw(w, G):
    N, K = w.shape
    g = w.reshape(N, K // G, G)
    scale = np.abs(g).max(axis=2) / 7.0
    scale[scale == 0] = 1.0
    codes = np.clip(np.round(g / scale[:, :, None]) + 8, 0, 15).astype(np.uint32).reshape(N, K // 8, 8)
    words = np.zeros((N, K // 8), dtype=np.uint32)
    for j in range(8):
        words |= codes[:, :, j] << np.uint32(4 * j)
    return words, scale.astype(np.float32)


def dequantize_q4gsw(words, scale, K, G):
    N = words.shape[0]
    codes = np.stack([(words >> np.uint32(4 * j)) & np.uint32(15) for j in range(8)], axis=2).reshape(N, K)
    return (codes.astype(np.float64) - 8.0) * np.repeat(scale.astype(np.float64), G, axis=1)


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    manifest = {"rms_norm": [], "linear_q4gsw": [], "softmax": [], "argmax": []}

    for D, rows, eps in [(8, 5, 1e-5), (64, 3, 1e-6), (4096, 2, 1e-5)]:
        x = torch.randn(rows, D, dtype=torch.float32) * 2.0
        w = torch.rand(D, dtype=torch.float32) + 0.5
        xd = x.double()
        out = (xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + eps) * w.double()).float()
        n = f"rms_norm_D{D}"
        manifest["rms_norm"].append({"name": n, "rows": rows, "D": D, "eps": eps, "x": save(n + ".x.bin", x, np.float32),
                                     "weight": save(n + ".w.bin", w, np.float32),
                                     "out": save(n + ".out.bin", out, np.float32)})

    for M, K, N, G, bias in [(1, 256, 67, 32, True), (5, 512, 40, 128, False), (3, 128, 9, 64, True), (1, 2048, 33, 64, False)]:
        w = rng.standard_normal((N, K)).astype(np.float32) * 0.1
        words, scale = quantize_q4gsw(w, G)
        wd = torch.from_numpy(dequantize_q4gsw(words, scale, K, G))
        x = torch.randn(M, K, dtype=torch.float64).float()
        b = torch.randn(N, dtype=torch.float32) if bias else None
        out = torch.nn.functional.linear(x.double(), wd, b.double() if bias else None).float()
        n = f"linear_q4gsw_M{M}_K{K}_N{N}_G{G}"
        case = {"name": n, "M": M, "K": K, "N": N, "G": G, "x": save(n + ".x.bin", x, np.float32),
                "qweight": save(n + ".qweight.bin", words, np.uint32), "scales": save(n + ".scales.bin", scale, np.float32),
                "out": save(n + ".out.bin", out, np.float32)}
        if bias:
            case["bias"] = save(n + ".bias.bin", b, np.float32)
        manifest["linear_q4gsw"].append(case)

    # softmax with -inf entries and one fully masked row (PyTorch gives NaN there; wgrt documents zeros).
    x = torch.randn(4, 37, dtype=torch.float32) * 5.0
    x[0, 3] = float("-inf")
    x[1, ::2] = float("-inf")
    x[3, :] = float("-inf")
    out = torch.softmax(x.double(), dim=-1).float()
    out[3, :] = 0.0
    manifest["softmax"].append({"name": "softmax_masked", "rows": 4, "D": 37, "x": save("softmax.x.bin", x, np.float32),
                                "out": save("softmax.out.bin", out, np.float32)})

    # argmax with ties (PyTorch returns the first maximal index).
    x = torch.randint(-3, 4, (6, 50)).float()
    idx = torch.argmax(x, dim=-1)
    manifest["argmax"].append({"name": "argmax_ties", "rows": 6, "D": 50, "x": save("argmax.x.bin", x, np.float32),
                               "out": [int(v) for v in idx]})

    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
