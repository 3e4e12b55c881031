#!/usr/bin/python3
"""PyTorch goldens for the part-B LLM ops (RoPE, sdpa_with_kv_cache), written to tests/golden/ops_b/.

RoPE: Meta Llama's apply_rotary_emb (complex multiply with torch.polar, as in llama/model.py) and Hugging
Face's rotate_half form (cos/sin concatenated over both halves), both from their textbook definitions.
sdpa_with_kv_cache: the KV cache is built by concatenation; attention is softmax(q k^T * scale + mask) v in
float64 with an explicit causal mask offset by input_pos (torch 1.13 has no F.scaled_dot_product_attention;
this is its documented math), GQA by repeat_interleave of the kv heads.
Run: /usr/bin/python3 tests/golden/make_goldens_ops_b.py   (deterministic: fixed seed)
"""
import json
import math
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops_b")


def flat(t):
    return [float(x) for x in t.detach().reshape(-1).to(torch.float32).tolist()]


def rope_meta(x, pos, theta):
    # x [B,S,H,D]; llama/model.py: precompute_freqs_cis + apply_rotary_emb (complex form).
    B, S, H, D = x.shape
    freqs = 1.0 / (theta ** (torch.arange(0, D, 2, dtype=torch.float64)[: D // 2] / D))
    t = torch.arange(pos, pos + S, dtype=torch.float64)
    cis = torch.polar(torch.ones(S, D // 2, dtype=torch.float64), torch.outer(t, freqs))
    xc = torch.view_as_complex(x.double().reshape(B, S, H, D // 2, 2))
    return torch.view_as_real(xc * cis.view(1, S, 1, D // 2)).reshape(B, S, H, D)


def rope_hf(x, pos, theta):
    # transformers' LlamaRotaryEmbedding + apply_rotary_pos_emb with rotate_half.
    B, S, H, D = x.shape
    inv = 1.0 / (theta ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    t = torch.arange(pos, pos + S, dtype=torch.float64)
    emb = torch.cat([torch.outer(t, inv)] * 2, dim=-1)  # [S, D]
    cos, sin = emb.cos().view(1, S, 1, D), emb.sin().view(1, S, 1, D)
    xd = x.double()
    rot = torch.cat([-xd[..., D // 2:], xd[..., : D // 2]], dim=-1)
    return xd * cos + rot * sin


def attention(q, kc, vc, pos, causal, scale):
    # q [B,S,Hq,D], kc/vc [B,L,Hkv,D] (L = pos + S live rows).
    B, S, Hq, D = q.shape
    L, Hkv = kc.shape[1], kc.shape[2]
    k = kc.double().repeat_interleave(Hq // Hkv, dim=2).transpose(1, 2)  # [B,Hq,L,D]
    v = vc.double().repeat_interleave(Hq // Hkv, dim=2).transpose(1, 2)
    qd = q.double().transpose(1, 2)  # [B,Hq,S,D]
    scores = qd @ k.transpose(-1, -2) * scale
    if causal:
        allowed = torch.arange(L).view(1, L) <= (pos + torch.arange(S)).view(S, 1)
        scores = scores.masked_fill(~allowed, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v).transpose(1, 2)  # [B,S,Hq,D]


def main():
    torch.manual_seed(1234)
    os.makedirs(OUT, exist_ok=True)
    cases = []
    for (B, S, Hq, Hkv, D, pos, theta, c_max) in [(1, 5, 3, 1, 8, 0, 10000.0, 16), (2, 3, 2, 2, 64, 9, 500000.0, 12),
                                                   (1, 2, 2, 1, 128, 30, 10000.0, 32)]:
        xq = torch.randn(B, S, Hq, D)
        xk = torch.randn(B, S, Hkv, D)
        cases.append(dict(B=B, S=S, Hq=Hq, Hkv=Hkv, D=D, pos=pos, theta=theta, c_max=c_max, xq=flat(xq), xk=flat(xk),
                          meta_q=flat(rope_meta(xq, pos, theta)), meta_k=flat(rope_meta(xk, pos, theta)),
                          hf_q=flat(rope_hf(xq, pos, theta)), hf_k=flat(rope_hf(xk, pos, theta))))
    with open(os.path.join(OUT, "rope.json"), "w") as f:
        json.dump({"cases": cases}, f)

    # sdpa_with_kv_cache: a prefill then decode steps on one cache; each step's q, k, v and expected out.
    B, Hq, Hkv, D, c_max = 1, 4, 2, 8, 16
    steps = []
    kc = torch.zeros(B, 0, Hkv, D)
    vc = torch.zeros(B, 0, Hkv, D)
    pos = 0
    for S in [5, 1, 1, 3]:
        q, k, v = torch.randn(B, S, Hq, D), torch.randn(B, S, Hkv, D), torch.randn(B, S, Hkv, D)
        kc, vc = torch.cat([kc, k], dim=1), torch.cat([vc, v], dim=1)
        out = attention(q, kc, vc, pos, True, 1.0 / math.sqrt(D))
        steps.append(dict(pos=pos, S=S, q=flat(q), k=flat(k), v=flat(v), out=flat(out)))
        pos += S
    with open(os.path.join(OUT, "sdpa.json"), "w") as f:
        json.dump({"B": B, "Hq": Hq, "Hkv": Hkv, "D": D, "c_max": c_max, "causal": True, "steps": steps}, f)


if __name__ == "__main__":
    main()
