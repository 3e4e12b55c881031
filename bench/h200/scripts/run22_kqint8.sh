#!/usr/bin/env bash
# H200 run 22 (kqint8, issues 12 / 13 / 15): int8 activations in the block-format decode GEMV (gemv_kq.wgsl with
# gemv_kq_i8.wgsl: x quantized per 32-k block as llama.cpp does, codes times x by dot4I8Packed). WGRT_GEMV_KQ_INT8:
# 2 (default on GPUs with packed dot products) each workgroup quantizes x in workgroup memory after the fused
# RMSNorm; 1 a quantize_q8 pass before the GEMV (the norm its own dispatch); 0 f32 x. Crossed with the fused layer
# body (WGRT_FUSED_GEMV) on Llama-3.2-1B Q4_K_M and Q6_K, tg64 after a 128-token prompt (depth ~128), beside Q4_0 (the goal: K-quant decode within 10% of it); then per-kernel GPU time of the
# block GEMV at M 1 and 8 (f32 x vs int8 x, quantize dispatch included) and of the fused gate/up GEMV.
# Target: < 60 s (reuses /tmp/m/l1b-*.gguf from an earlier script of the batch when present).
# Usage (repo root on the H200 machine, release binaries in .devlibs/new): bash bench/h200/scripts/run22_kqint8.sh
set -u
source .devlibs/env.sh
N=${WGRT:-.devlibs/new/wgrt}; M=/tmp/m
source bench/h200/scripts/l1b_files.sh
$N info 2>&1 | grep -E "block-format GEMV" | head -2
tg() { timeout 40 env "$@" 2>&1 | grep -E '^\| tg' | tr -s ' '; }
B="-p 128 -n 64 -r 2 --tg-mode pipelined"
echo "-- Q4_0 (reference): $(tg $N bench -m $M/l1b-Q4_0.gguf $B)"
for f in Q4_K_M Q6_K; do for fg in 1 0; do for i8 in 2 1 0; do
  [ $f = Q6_K ] && [ $fg = 0 ] && continue
  [ $i8 = 1 ] && { [ $fg = 0 ] || [ $f = Q6_K ]; } && continue  # unfused, 2 and 1 differ only where 2 does not fit
  echo "-- $f WGRT_FUSED_GEMV=$fg WGRT_GEMV_KQ_INT8=$i8: $(tg WGRT_FUSED_GEMV=$fg WGRT_GEMV_KQ_INT8=$i8 $N bench -m $M/l1b-$f.gguf $B)"
done; done; done
echo "-- Q4_K_M int8 rpt 1: $(tg WGRT_GEMV_GGML=blocks,1 $N bench -m $M/l1b-Q4_K_M.gguf $B)"
# Per-kernel (BM_GemvGgml: type, K, N, M, kernel 1 f32 x / 2 int8 staged / 3 int8 pass; Fused: ..., fused, x 0 / 2 / 1).
[ -x .devlibs/new/wgrt_bench_ops ] && timeout 50 .devlibs/new/wgrt_bench_ops \
  --benchmark_filter='GemvGgml/(12|14)/2048/8192/(1|8)/(1|2|3)/|GemvGgmlFused/(12|14)/2048/8192/(1|8)/1/' 2>&1 | grep -E "Gemv" \
  || echo "(no .devlibs/new/wgrt_bench_ops: per-kernel rows skipped)"
