#!/usr/bin/env bash
# H200 run 21 (kqdec, issue 12 / 15): the fused layer body for block-format weights (wgrt.linear_ggml_fused:
# gemv_kq.wgsl with the RMSNorm prologue and residual / SwiGLU epilogues, 8 instead of 11 dispatches per layer in
# decode) on vs off (WGRT_FUSED_GEMV=0 is the unfused body, same binary), Llama-3.2-1B Q4_0 / Q4_K_M / Q6_K,
# tg128 after a 128-token prompt (depth ~128); then per-kernel GPU time of the fused gate/up GEMV (norm + GLU
# inside) vs the unfused norm + GEMV + swiglu at M 1 and 8 (wgrt_bench_ops BM_GemvGgmlFused), and the plain
# block GEMV at M 1 / 8. Target: < 60 s (reuses /tmp/m/l1b-*.gguf from run21_profile.sh when present).
# Usage (repo root on the H200 machine, release binaries in .devlibs/new): bash bench/h200/scripts/run21_kqdec.sh
set -u
source .devlibs/env.sh
N=${WGRT:-.devlibs/new/wgrt}; M=/tmp/m; mkdir -p $M /tmp/lc
[ -f $M/l1b-Q4_0.gguf ] || $N synth --preset llama-3.2-1b --type q4_0 -o $M/l1b-Q4_0.gguf >/dev/null
if [ ! -f $M/l1b-Q4_K_M.gguf ] || [ ! -f $M/l1b-Q6_K.gguf ]; then
  [ -d /tmp/lc/linux-x64 ] || tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
  $N synth --preset llama-3.2-1b --type f16 -o $M/l1b-f16.gguf >/dev/null
  for t in Q4_K_M Q6_K; do
    [ -f $M/l1b-$t.gguf ] || .devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/l1b-f16.gguf $M/l1b-$t.gguf $t \
      >/dev/null 2>&1 || echo "quantize $t failed"
  done
  rm -f $M/l1b-f16.gguf
fi
for f in Q4_0 Q4_K_M Q6_K; do for fg in 1 0; do
  echo "== $f WGRT_FUSED_GEMV=$fg"
  WGRT_FUSED_GEMV=$fg timeout 60 $N bench -m $M/l1b-$f.gguf -p 128 -n 128 -r 2 2>&1 | grep -E '^\| (pp|tg)'
done; done
[ -x .devlibs/new/wgrt_bench_ops ] && timeout 60 .devlibs/new/wgrt_bench_ops \
  --benchmark_filter='GemvGgmlFused|GemvGgml/(12|14)/2048/8192/(1|8)/1' 2>&1 | grep -E "Gemv" \
  || echo "(no .devlibs/new/wgrt_bench_ops: per-kernel rows skipped)"
