#!/usr/bin/env bash
# Every H200 benchmark in one command (run through the device tool, see bench/README.md): adapter info,
# end-to-end prefill/decode of random-weight Q4_0 models of real shapes (wgrt synth + wgrt bench), a decode
# kernel breakdown, op benchmarks (q4 GEMV vs vec4 copy and read, GEMM), attention decode, ViT-B/16.
# Expects stripped binaries in $BIN (wgrt, wgrt_bench_ops, wgrt_bench_attention, wgrt_bench_vit).
set -u
[ -f .devlibs/env.sh ] && source .devlibs/env.sh  # device tool: Vulkan loader, libs, NVIDIA ICD
BIN=${BIN:-.devlibs}
M=${MODELS:-/tmp/wgrt-models}
mkdir -p "$M"
echo "== info"; "$BIN/wgrt" info | sed -n '1,25p'
for p in smollm2-135m qwen2.5-0.5b llama-3.2-1b; do
  "$BIN/wgrt" synth --preset "$p" --type q4_0 -o "$M/$p.gguf"
done
for p in smollm2-135m qwen2.5-0.5b llama-3.2-1b; do
  echo "== bench $p q4_0 pp128/tg128"; "$BIN/wgrt" bench -m "$M/$p.gguf" -p 128 -n 128 -r 3
done
echo "== bench llama-3.2-1b q4_0 pp512/tg128"; "$BIN/wgrt" bench -m "$M/llama-3.2-1b.gguf" -p 512 -n 128 -r 3
echo "== decode profile llama-3.2-1b"
"$BIN/wgrt" generate -m "$M/llama-3.2-1b.gguf" -p "hello world" -n 64 --ctx 512 --profile 2>&1 >/dev/null | tail -25
echo "== ops"; "$BIN/wgrt_bench_ops" --benchmark_min_time=0.2 2>&1 | grep -v '^\*\*\*'
# Each q4 GEMV again in a fresh process with its own references (copy of its code bytes, read of its total
# bytes): large buffers were seen 2-3x slower when allocated after other benchmarks in the same process.
# The default kernel (packed int8 on GPUs) and the f32-decode one (WGRT_GEMV_Q4_ROUTE=wg) side by side.
for kn in 2048/2048 2048/8192 8192/2048 2048/128256; do
  K=${kn%/*} N=${kn#*/}
  for route in default wg; do
    echo "== ops fresh process: q4 GEMV K $K N $N, kernel: $route"
    env $([ $route = wg ] && echo WGRT_GEMV_Q4_ROUTE=wg) "$BIN/wgrt_bench_ops" --benchmark_min_time=0.3 \
      --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      --benchmark_filter="^BM_GemvQ4/$K/$N/|^BM_Copy/$((K * N / 2))/|^BM_Read/$((K * N * 5 / 8))/" 2>&1 | grep -E 'median|% of'
  done
done
echo "== attention"; "$BIN/wgrt_bench_attention" 2>&1 | grep -v '^\*\*\*'
echo "== vit"; "$BIN/wgrt_bench_vit" --benchmark_filter='VitB16|VitWall|Conv2d' 2>&1 | grep -v '^\*\*\*'
