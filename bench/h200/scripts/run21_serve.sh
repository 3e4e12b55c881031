#!/usr/bin/env bash
# H200 run 21, serving (issue 15): wgrt serve at 1 and 8 concurrent streams x 2 requests of 128 tokens on
# Llama-3.2-1B Q4_0 and Q4_K_M (std 0.2 weights; serve_files.sh), 8 slots of 1024 tokens: greedy, then sampled
# (temperature 0.8, top_k 40, seeded) with the draw on the GPU inside the batched graph (WGRT_GPU_SAMPLING=1:
# B token ids read back per step) and on the CPU (WGRT_GPU_SAMPLING=0: B x vocab logits read back, the
# previous path; Q4_0 only, fewer tokens). serve_bench.py warms every stream level up before timing it. About
# 60-80 s.
# PEER=1 adds llama-server (bench/peers/build_llama_server.sh) on the Q4_0 file at the same levels (+~30 s).
# Usage (repo root on the H200 machine): bash bench/h200/scripts/run21_serve.sh
set -u
source .devlibs/env.sh
WGRT=${WGRT:-.devlibs/new/wgrt}
M=${M:-/tmp/serve-models}
mkdir -p "$M" /tmp/lsp
export WGRT_TEST_PORTS=${WGRT_TEST_PORTS:-18100-18199} TMPDIR=${TMPDIR:-/tmp}
source bench/h200/scripts/serve_files.sh
B="--streams 1,8 --max-tokens 128 --requests 2 --warmup-tokens 16"
for f in "${files[@]}"; do
  echo "== wgrt serve $(basename "$f") greedy"
  timeout 40 python3 bench/serve_bench.py --wgrt "$WGRT" $B -- -m "$f" --ctx 1024 --parallel 8
  echo "== wgrt serve $(basename "$f") temperature 0.8, WGRT_GPU_SAMPLING=1"
  WGRT_GPU_SAMPLING=1 timeout 40 python3 bench/serve_bench.py --wgrt "$WGRT" $B --temperature 0.8 -- \
    -m "$f" --ctx 1024 --parallel 8
done
# The CPU draw's cost does not depend on the weights: Q4_0 only, 32 tokens x 1 request (8 x ~20 ms per step).
echo "== wgrt serve $(basename "${files[0]}") temperature 0.8, WGRT_GPU_SAMPLING=0 (32 tokens x 1 request)"
WGRT_GPU_SAMPLING=0 timeout 40 python3 bench/serve_bench.py --wgrt "$WGRT" --streams 1,8 --max-tokens 32 --requests 1 \
  --warmup-tokens 8 --temperature 0.8 -- -m "${files[0]}" --ctx 1024 --parallel 8
if [ "${PEER:-0}" = 1 ] && [ -f .devlibs/peers/llama-server-peer.tar.xz ]; then
  tar -xJf .devlibs/peers/llama-server-peer.tar.xz -C /tmp/lsp && LS=/tmp/lsp/llama-server-peer/llama-server
  echo "== llama-server $(basename "${files[0]}") -fa auto greedy"
  timeout 60 python3 bench/serve_bench.py --llama-server "$LS" $B -- -m "${files[0]}" -ngl 99 --parallel 8 -c 8192 -fa auto
fi
