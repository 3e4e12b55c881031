#!/usr/bin/python3
"""gguf-py goldens for the ggml block-format dequantizers (src/formats/ggml_blocks*.cpp).

For each type: <TYPE>.in.bin holds raw block bytes, <TYPE>.out.bin the f32 values llama.cpp's gguf-py
(gguf/quants.py, numpy) dequantizes them to; manifest.json lists types, element counts and sha256 of both.
The tests (tests/host/ggml_dequant_test.cpp) compare wgrt's output with .out.bin bit for bit.

Why the outputs are committed (about 90 KB): gguf-py is not on a fresh machine (it ships inside the
node-llama-cpp npm package's llama.cpp git bundle), and the host tests must not need the network. Re-running
this script with the same gguf-py rewrites identical files (fixed seed).

Inputs: random bytes (numpy seed 12) with every f16/bf16 field forced finite (an f16 with exponent 31 gets its
top exponent bit cleared), so no NaN reaches a comparison; scales therefore span subnormal to 2^15. Block 0 is
all zero bytes, block 1 all 0xFF (largest codes; its f16 fields become 0xBFFF = -1.999). MXFP4's E8M0 byte is
not patched: e >= 254 gives inf products, which both sides produce.

Usage (needs python3-numpy):
  npm pack node-llama-cpp@3.21.1 && tar xzf node-llama-cpp-3.21.1.tgz
  git clone package/llama/gitRelease.bundle llama.cpp          # llama.cpp 80fb11a
  /usr/bin/python3 tests/golden/make_goldens_quant.py llama.cpp/gguf-py
"""
import hashlib
import json
import os
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "quant")

# type name -> (number of blocks, byte offsets of the f16 fields in a block)
TYPES = {
    "Q4_0": (24, [0]), "Q4_1": (24, [0, 2]), "Q5_0": (24, [0]), "Q5_1": (24, [0, 2]), "Q8_0": (24, [0]),
    "IQ4_NL": (24, [0]), "MXFP4": (24, []),
    "Q2_K": (5, [80, 82]), "Q3_K": (5, [108]), "Q4_K": (5, [0, 2]), "Q5_K": (5, [0, 2]), "Q6_K": (5, [208]),
    "IQ4_XS": (5, [0]),
}
PLAIN = {"F16": 300, "BF16": 300}  # element counts
# The grid i-quants (added later, drawn from their own generator, seed 13, so the files above stay identical).
# IQ1_M has no f16 field of its own: its d is the top nibbles of the u16 scales at 48..55; clearing bit 6 of
# byte 55 (the exponent's top bit) keeps it finite.
IQ_TYPES = {"IQ2_XXS": (5, [0]), "IQ2_XS": (5, [0]), "IQ2_S": (5, [0]), "IQ3_XXS": (5, [0]), "IQ3_S": (5, [0]),
            "IQ1_S": (5, [0]), "IQ1_M": (5, [])}


def finite_f16(h):
    h = h.copy()
    bad = ((h >> 10) & 0x1F) == 0x1F
    h[bad] &= np.uint16(0xBFFF)
    return h


def finite_bf16(h):
    h = h.copy()
    bad = ((h >> 7) & 0xFF) == 0xFF
    h[bad] &= np.uint16(0xBFFF)
    return h


def sha(b):
    return hashlib.sha256(b).hexdigest()


def block_golden(manifest, quants, rng, qt, sizes, name, nblocks, halves):
    elems, size = sizes[qt]
    raw = rng.integers(0, 256, size=(nblocks, size), dtype=np.uint8)
    raw[0, :] = 0
    raw[1, :] = 0xFF
    for off in halves:
        h = raw[:, off:off + 2].copy().view(np.uint16).reshape(-1)
        raw[:, off:off + 2] = finite_f16(h).view(np.uint8).reshape(nblocks, 2)
    if name == "IQ1_M":
        raw[:, 55] &= np.uint8(0xBF)
    # one row of all the blocks (gguf-py dequantizes along the last axis)
    data = np.ascontiguousarray(raw).reshape(1, nblocks * size)
    with np.errstate(over="ignore", invalid="ignore"):
        out = quants.dequantize(data, qt).astype("<f4").reshape(-1)
    assert out.size == nblocks * elems and not np.isnan(out).any(), name
    write(manifest, name, data.tobytes(), out.tobytes(), out.size)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.path.insert(0, sys.argv[1])
    from gguf import quants
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(12)
    manifest = {"source": "llama.cpp 80fb11a gguf-py gguf/quants.py", "types": []}
    for name, (nblocks, halves) in TYPES.items():
        block_golden(manifest, quants, rng, T[name], GGML_QUANT_SIZES, name, nblocks, halves)
    for name, n in PLAIN.items():
        h = rng.integers(0, 65536, size=n, dtype=np.uint16)
        h[0], h[1], h[2] = 0x0001, 0x8000, 0x03FF  # smallest subnormal, -0, largest subnormal (f16)
        h = finite_f16(h) if name == "F16" else finite_bf16(h)
        data = h.astype("<u2").view(np.uint8).reshape(1, -1)
        out = quants.dequantize(data if name == "BF16" else data.view(np.uint8), T[name])
        out = np.asarray(out, dtype="<f4").reshape(-1)
        assert out.size == n and not np.isnan(out).any(), name
        write(manifest, name, data.tobytes(), out.tobytes(), n)
    rng_iq = np.random.default_rng(13)
    for name, (nblocks, halves) in IQ_TYPES.items():
        block_golden(manifest, quants, rng_iq, T[name], GGML_QUANT_SIZES, name, nblocks, halves)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


def write(manifest, name, inb, outb, n):
    with open(os.path.join(OUT, name + ".in.bin"), "wb") as f:
        f.write(inb)
    with open(os.path.join(OUT, name + ".out.bin"), "wb") as f:
        f.write(outb)
    manifest["types"].append({"type": name, "elements": int(n), "in_bytes": len(inb),
                              "in_sha256": sha(inb), "out_sha256": sha(outb)})


if __name__ == "__main__":
    main()
