#!/usr/bin/env bash
# H200 run 20 (fuse branch): q4gsw with f16 scales (GPU weight bytes vs the file's) and the fused decode kernels
# (wgrt.linear_q4gsw_fused: RMSNorm folded into the GEMV, residual add and SwiGLU in its epilogue). Decode tg128
# at depth 128 and 2048 on Llama-3.2-1B and Qwen2.5-0.5B Q4_0, fused (default) vs WGRT_FUSED_GEMV=0 (the same
# graph with the norm and the GLU as their own dispatches, as before), llama.cpp's Vulkan llama-bench fa1 on the
# same files in the same run, and the per-kernel profile (dispatch count per decode token).
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M
N=.devlibs/new/wgrt
$N info 2>&1 | sed -n '/Tuning policy/,$p'
$N synth --preset llama-3.2-1b --type q4_0 -o $M/llama-3.2-1b-Q4_0.gguf >/dev/null || echo "synth failed"
$N synth --preset qwen2.5-0.5b --type q4_0 -o $M/qwen2.5-0.5b-Q4_0.gguf >/dev/null || echo "synth failed"
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
for f in $M/llama-3.2-1b-Q4_0.gguf $M/qwen2.5-0.5b-Q4_0.gguf; do
  b=$(basename $f)
  for d in 128 2048; do
    echo "== new $b p$d/n128 fused (pipelined)"
    $N bench -m $f -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| (pp|tg)|weight|GPU'
    echo "== new $b p$d/n128 WGRT_FUSED_GEMV=0 (pipelined)"
    WGRT_FUSED_GEMV=0 $N bench -m $f -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| (pp|tg)'
    echo "== new $b p$d/n128 fused (logits, as llama-bench)"
    $N bench -m $f -p $d -n 128 -r 3 2>&1 | grep -E '^\| (pp|tg)'
  done
  echo "== new $b p512"; $N bench -m $f -p 512 -n 8 -r 3 2>&1 | grep -E '^\| pp'
  echo "== llama-bench $b fa1"
  /tmp/llama-bench -m $f -ngl 99 -r 3 -p 0 -n 128 -d 128,2048 -fa 1 2>&1 | grep -E '^\| .*tg'
  /tmp/llama-bench -m $f -ngl 99 -r 3 -p 512 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
  for fz in 1 0; do
    echo "== profile $b WGRT_FUSED_GEMV=$fz (16 decode tokens after a 128-token prompt; per-kernel table)"
    WGRT_FUSED_GEMV=$fz $N generate -m $f -p "$(printf 'hello %.0s' $(seq 1 100))" -n 16 --temp 0 --profile 2>&1 >/dev/null |
      grep -vE '^\s*$' | head -40
  done
done
