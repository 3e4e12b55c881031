#!/usr/bin/python3
"""Builds the ONNX models for the onnxruntime-node (WebGPU EP) peer benchmarks into bench/ort/models/
(ignored by git: regenerate them; random weights, seeded).

  matmulnbits_K{K}_N{N}.onnx  one com.microsoft MatMulNBits node (bits 4, block_size 32, K and N attributes):
      A [1, K] f32 input, B uint8 [N, K/32, 16] and scales f32 [N*K/32] initializers, no zero_points (so the
      zero point is 8: W[n, k] = (nibble - 8) * scale, low nibble first: the same q4 layout as wgrt's q4gsw
      with G = 32), Y [1, N] f32 output.  (K, N) in (2048, 2048), (2048, 8192), (8192, 2048), plus (256, 256)
      as a probe of the fixed per-run cost (submit, wait, readback, runtime overhead).
  vit_b16_d{D}.onnx  a ViT-B/16 image encoder (timm VisionTransformer layout, same config as wgrt's
      VitConfig::vit_b16() in src/models/vit_graph.h: 224x224x3, patch 16, width 768, 12 heads, MLP 3072,
      class token, pre-LN with eps 1e-6, erf GELU, final LayerNorm; output [1, 197, 768] features) with depth D
      (default 2; --vit-depth 12 for the full model), exported from PyTorch with opset 17.

Run with the Debian python (torch 1.13, python3-onnx 1.12):  /usr/bin/python3 bench/ort/make_models.py
"""
import argparse
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import torch
import torch.nn as nn

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


class Attention(nn.Module):
    def __init__(self, w, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(w, 3 * w)
        self.proj = nn.Linear(w, w)

    def forward(self, x):
        B, T, W = x.shape
        hd = W // self.heads
        qkv = self.qkv(x).reshape(B, T, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        a = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(hd)), dim=-1)
        return self.proj(torch.matmul(a, v).transpose(1, 2).reshape(B, T, W))


class Mlp(nn.Module):
    def __init__(self, w, m):
        super().__init__()
        self.fc1 = nn.Linear(w, m)
        self.fc2 = nn.Linear(m, w)

    def forward(self, x):
        return self.fc2(nn.functional.gelu(self.fc1(x)))  # erf GELU ("none")


class Block(nn.Module):
    def __init__(self, w, heads, m, eps):
        super().__init__()
        self.norm1 = nn.LayerNorm(w, eps=eps)
        self.attn = Attention(w, heads)
        self.norm2 = nn.LayerNorm(w, eps=eps)
        self.mlp = Mlp(w, m)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class PatchEmbed(nn.Module):
    def __init__(self, c, w, p):
        super().__init__()
        self.proj = nn.Conv2d(c, w, kernel_size=p, stride=p)


class VisionTransformer(nn.Module):
    """timm-style names: patch_embed.proj, cls_token, pos_embed, blocks.{i}.{norm1,attn.qkv,attn.proj,norm2,
    mlp.fc1,mlp.fc2}, norm (as in wgrt's vit_weight_shapes)."""

    def __init__(self, image=224, patch=16, channels=3, width=768, depth=12, heads=12, mlp=3072, eps=1e-6):
        super().__init__()
        g = image // patch
        self.patch_embed = PatchEmbed(channels, width, patch)
        self.cls_token = nn.Parameter(torch.randn(1, 1, width) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, g * g + 1, width) * 0.02)
        self.blocks = nn.ModuleList([Block(width, heads, mlp, eps) for _ in range(depth)])
        self.norm = nn.LayerNorm(width, eps=eps)

    def forward(self, x):
        x = self.patch_embed.proj(x).flatten(2).transpose(1, 2)  # [B, g*g, W]
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        return self.norm(x)


def export_vit(depth, path):
    torch.manual_seed(1)
    m = VisionTransformer(depth=depth).eval()
    x = torch.rand(1, 3, 224, 224)
    with torch.no_grad():
        torch.onnx.export(m, (x,), path, input_names=["pixels"], output_names=["features"], opset_version=17,
                          do_constant_folding=True)


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
            print("wrote", p, f"({os.path.getsize(p) / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
