#!/usr/bin/python3
"""Builds the ONNX models for the onnxruntime-node (WebGPU EP) peer benchmarks into bench/ort/models/
(ignored by git: regenerate them; random weights, seeded).

  matmulnbits_K{K}_N{N}.onnx  one com.microsoft MatMulNBits node (bits 4, block_size 32, K and N attributes):
      A [1, K] f32 input, B uint8 [N, K/32, 16] and scales f32 [N*K/32] initializers, no zero_points (so the
      zero point is 8: W[n, k] = (nibble - 8) * scale, low nibble first: the same q4 layout as wgrt's q4gsw
      with G = 32), Y [1, N] f32 output.  (K, N) in (2048, 2048), (2048, 8192), (8192, 2048), plus (256, 256)
      as a probe of the fixed per-run cost (submit, wait, readback, runtime overhead).
  vit_b16_d{D}.onnx  a ViT-B/16 image classifier (timm VisionTransformer layout, same config as wgrt's
      VitConfig::vit_b16() in src/models/vit_graph.h: 224x224x3, patch 16, width 768, 12 heads, MLP 3072,
      class token, pre-LN with eps 1e-6, erf GELU, final LayerNorm; outputs features [batch, 197, 768] and
      logits [batch, 1000]) with depth D (default 2; --vit-depth 12 for the full model), built in the node
      forms of torch.onnx.export at opset 17 by tests/golden/make_vit_onnx.py (weights in vit_b16_d{D}.onnx.data).

Run with the Debian python (python3-onnx 1.12, numpy):  /usr/bin/python3 bench/ort/make_models.py
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def matmulnbits_model(K, N, block=32, seed=0):
    rng = np.random.default_rng(seed)
    nb = K // block
    b = rng.integers(0, 256, size=(N, nb, block // 2), dtype=np.uint8)
    scales = rng.uniform(0.001, 0.01, size=(N * nb,)).astype(np.float32)
    node = helper.make_node("MatMulNBits", ["A", "B", "scales"], ["Y"], domain="com.microsoft",
                            K=K, N=N, bits=4, block_size=block, name="gemv_q4")
    graph = helper.make_graph(
        [node], f"matmulnbits_K{K}_N{N}",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, [1, K])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, N])],
        initializer=[numpy_helper.from_array(b, "B"), numpy_helper.from_array(scales, "scales")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                          producer_name="wgrt-bench")
    m.ir_version = 8
    return m


def export_vit(depth, path):
    """The ViT-B/16 classifier of tests/golden/make_vit_onnx.py (onnx helper API, weights as external data)."""
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "tests", "golden", "make_vit_onnx.py"), path,
                    "--depth", str(depth)], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "models"))
    ap.add_argument("--vit-depth", type=int, action="append", help="ViT depth(s) to export (default: 2)")
    ap.add_argument("--skip-vit", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for K, N in [(256, 256), (2048, 2048), (2048, 8192), (8192, 2048)]:
        p = os.path.join(a.out, f"matmulnbits_K{K}_N{N}.onnx")
        m = matmulnbits_model(K, N)
        onnx.checker.check_model(m)
        onnx.save(m, p)
        print("wrote", p)
    if not a.skip_vit:
        for d in a.vit_depth or [2]:
            p = os.path.join(a.out, f"vit_b16_d{d}.onnx")
            export_vit(d, p)


if __name__ == "__main__":
    main()
