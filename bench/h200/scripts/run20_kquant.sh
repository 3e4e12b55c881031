#!/usr/bin/env bash
# H200 run 20: issue 12 (K-quant decode within 10% of Q4_0 decode) and issue 15 (Q4_K_M serve at 8 streams >= 4x
# one stream) after the layout-aware block-format GEMV (src/ops/linear/gemv_kq.wgsl: whole sub-blocks per
# invocation, each weight decoded once for up to 8 rows of x). Llama-3.2-1B shape: `wgrt synth --type f16`
# quantized by llama.cpp's own quantizer (as run17). Per file: wgrt bench pp512 / tg128 with the new kernel
# (default) and with WGRT_GEMV_GGML=generic (the previous kernel, same binary); llama.cpp's Vulkan llama-bench on
# the same files; then wgrt serve at 1/2/4/8 streams on Q4_K_M (and Q4_0 for the same-run reference), as run19.
# Usage (repo root on the H200 machine, release binaries in .devlibs/new, peers in .devlibs/peers):
#   bash bench/h200/scripts/run20_kquant.sh
set -u
source .devlibs/env.sh
export WGRT=${WGRT:-.devlibs/new/wgrt} HELPER=${HELPER:-.devlibs/wgrt_llamacpp_helper}
Q=${Q:-/tmp/q20}; mkdir -p "$Q" /tmp/lc
tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
"$WGRT" info 2>&1 | sed -n '/Tuning policy/,$p'
# Per-kernel GPU time: block-format GEMV at M 1/2/4/8, new vs generic, beside the q4gsw GEMV (bench_ops).
[ -x .devlibs/new/wgrt_bench_ops ] && .devlibs/new/wgrt_bench_ops --benchmark_filter='GemvGgml|GemvQ4/2048/8192' 2>&1 | grep -E "Gemv" \
  || echo "(no .devlibs/new/wgrt_bench_ops: per-kernel rows skipped)"
TYPES="Q4_0 Q4_K_M Q6_K Q8_0 Q5_K_M"
echo "== wgrt bench, block GEMV (default)"
LIBDIR=/tmp/lc/linux-x64 OUT=$Q TYPES="$TYPES" P=512 N=128 R=3 bash bench/run_quant_types.sh
for t in $TYPES; do echo "-- $t"; grep -iE "^model:|weight|^\| (pp|tg)" "$Q/llama-3.2-1b-$t.wgrt.txt" | head -6; done
echo "== wgrt bench, WGRT_GEMV_GGML=generic (previous kernel)"
for t in Q4_K_M Q6_K Q8_0; do
  echo "-- $t generic"; WGRT_GEMV_GGML=generic "$WGRT" bench -m "$Q/llama-3.2-1b-$t.gguf" -p 512 -n 128 -r 3 2>&1 | grep -E '^\| (pp|tg)'
done
echo "== wgrt bench Q4_K_M / Q6_K rows of W per invocation (WGRT_GEMV_GGML=blocks,RPT; default 2)"
for t in Q4_K_M Q6_K; do for rpt in 1 4; do
  echo "-- $t blocks,$rpt"; WGRT_GEMV_GGML=blocks,$rpt "$WGRT" bench -m "$Q/llama-3.2-1b-$t.gguf" -p 128 -n 128 -r 3 2>&1 | grep -E '^\| tg'
done; done
echo "== wgrt bench tg128 pipelined"
for t in Q4_0 Q4_K_M Q6_K Q8_0; do
  echo "-- $t"; "$WGRT" bench -m "$Q/llama-3.2-1b-$t.gguf" -p 128 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg'
done
for t in Q4_0 Q4_K_M Q6_K Q8_0; do
  echo "== llama-bench $t fa1"
  /tmp/llama-bench -m "$Q/llama-3.2-1b-$t.gguf" -ngl 99 -r 3 -p 512 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
  /tmp/llama-bench -m "$Q/llama-3.2-1b-$t.gguf" -ngl 99 -r 3 -p 0 -n 128 -d 512 -fa 1 2>&1 | grep -E '^\| .*tg'
done
# Serve: std 0.2 weights so the greedy text varies (run19).
S=/tmp/serve20; mkdir -p "$S"
export WGRT_TEST_PORTS=${WGRT_TEST_PORTS:-18100-18199} TMPDIR=${TMPDIR:-/tmp}
"$WGRT" synth --preset llama-3.2-1b --type q4_0 --init-std 0.2 -o "$S/llama-3.2-1b-Q4_0.gguf" > /dev/null
"$WGRT" synth --preset llama-3.2-1b --type f16 --init-std 0.2 -o "$S/llama-3.2-1b-f16.gguf" > /dev/null
"$HELPER" quantize /tmp/lc/linux-x64 "$S/llama-3.2-1b-f16.gguf" "$S/llama-3.2-1b-Q4_K_M.gguf" Q4_K_M > /dev/null
rm -f "$S/llama-3.2-1b-f16.gguf"
for f in "$S/llama-3.2-1b-Q4_K_M.gguf" "$S/llama-3.2-1b-Q4_0.gguf"; do
  echo "== serve $(basename "$f") (default)"
  timeout 300 python3 bench/serve_bench.py --wgrt "$WGRT" --max-tokens 128 --requests 3 -- -m "$f" --ctx 1024 --parallel 8
done
echo "== serve Q4_K_M WGRT_GEMV_GGML=blocks,1"
WGRT_GEMV_GGML=blocks,1 timeout 300 python3 bench/serve_bench.py --wgrt "$WGRT" --max-tokens 128 --requests 3 -- \
  -m "$S/llama-3.2-1b-Q4_K_M.gguf" --ctx 1024 --parallel 8
echo "== serve Q4_K_M WGRT_GEMV_GGML=generic (previous kernel)"
WGRT_GEMV_GGML=generic timeout 300 python3 bench/serve_bench.py --wgrt "$WGRT" --max-tokens 128 --requests 3 -- \
  -m "$S/llama-3.2-1b-Q4_K_M.gguf" --ctx 1024 --parallel 8
