#!/usr/bin/env bash
# H200 run 20 (issue 13, prefill): the int8 MMQ prefill GEMM (gemm_mmq.wgsl, q4gsw = Q4_0 files) against the f32
# register-blocked GEMM it replaces (WGRT_GEMM_MMQ=0) and llama.cpp's Vulkan llama-bench with matrix cores off and
# on (fa 1), on the same files in the same run: Llama-3.2-1B Q4_0 and Q4_K_M (llama.cpp's quantizer) and
# Qwen2.5-0.5B Q4_0. Q4_K_M's matrices stay block-format (gemm_big B_MODE 2; the int8 kernel is q4gsw only), so
# its rows show the attention/other parts moving, not the GEMM. Then the op-level GEMM microbench (GPU time).
# Expects release binaries in .devlibs/new (wgrt, wgrt_bench_ops) and the peers in .devlibs/peers.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M
N=.devlibs/new/wgrt
$N info 2>&1 | sed -n '/Tuning policy/,$p'
$N synth --preset llama-3.2-1b --type q4_0 -o $M/llama-3.2-1b-Q4_0.gguf >/dev/null || echo "synth failed"
$N synth --preset qwen2.5-0.5b --type q4_0 -o $M/qwen2.5-0.5b-Q4_0.gguf >/dev/null || echo "synth failed"
mkdir -p /tmp/lc && tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
$N synth --preset llama-3.2-1b --type f16 -o $M/llama-3.2-1b-f16.gguf >/dev/null
.devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/llama-3.2-1b-f16.gguf $M/llama-3.2-1b-Q4_K_M.gguf Q4_K_M >/dev/null 2>&1 || echo "quantize failed"
rm -f $M/llama-3.2-1b-f16.gguf
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
for f in $M/llama-3.2-1b-Q4_0.gguf $M/qwen2.5-0.5b-Q4_0.gguf $M/llama-3.2-1b-Q4_K_M.gguf; do
  b=$(basename $f)
  for p in 512 2048; do
    echo "== wgrt $b p$p (int8 GEMM, default)"; $N bench -m $f -p $p -n 8 -r 3 2>&1 | grep -E '^\| pp'
    echo "== wgrt $b p$p WGRT_GEMM_MMQ=0 (f32 GEMMs)"; WGRT_GEMM_MMQ=0 $N bench -m $f -p $p -n 8 -r 3 2>&1 | grep -E '^\| pp'
    echo "== wgrt $b p$p WGRT_GEMM_MMQ=64 (int8 only where gemm_big would run)"; WGRT_GEMM_MMQ=64 $N bench -m $f -p $p -n 8 -r 3 2>&1 | grep -E '^\| pp'
  done
  echo "== llama-bench $b fa1 matrix cores off"
  GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 /tmp/llama-bench -m $f -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
  echo "== llama-bench $b fa1 (matrix cores on)"
  /tmp/llama-bench -m $f -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
done
if [ -x .devlibs/new/wgrt_bench_ops ]; then
  for v in 1 0; do
    echo "== op GEMM microbench WGRT_GEMM_MMQ=$v (GPU time; q4gsw rows)"
    WGRT_GEMM_MMQ=$v .devlibs/new/wgrt_bench_ops --benchmark_filter=BM_Gemm --benchmark_min_time=0.3 2>&1 | grep -E 'BM_Gemm|adapter'
  done
fi
