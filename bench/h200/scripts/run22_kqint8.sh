#!/usr/bin/env bash
# H200 run 22 (kqint8, issues 12 / 13 / 15), ~60 s: int8 activations in the block-format decode GEMV (gemv_kq.wgsl
# with gemv_kq_i8.wgsl: x quantized per 32-k block as llama.cpp does, codes times x by dot4I8Packed).
# WGRT_GEMV_KQ_INT8: 2 (default on GPUs with packed dot products) each workgroup quantizes x in workgroup memory
# after the fused RMSNorm; 1 a quantize_q8 pass before the GEMV (the norm its own dispatch); 0 f32 x (the previous
# kernel). Rows:
#  1. wgrt bench tg64 at depth ~128, Llama-3.2-1B Q4_K_M and Q6_K, int8 2 / 1 / 0 x fused body on / off, beside Q4_0
#     (the goal: K-quant decode within 10% of it) and gemv_kq RPT 1 (WGRT_GEMV_GGML=blocks,1) under int8 2;
#  2. the serving batch step (wgrt_bench_batch, rows 1,2,4,8, depth 128) on Q4_K_M, int8 2 / 0 (issue 15: 8 rows
#     vs 1; the mid batch measured the f32 gemv_kq at 71.8 us per dispatch at 8 rows vs Q4_0's 35.4);
#  3. per-kernel GPU time of the block GEMV at M 1 and 8 (wgrt_bench_ops BM_GemvGgml kernel 1 f32 x, 2 int8 staged,
#     3 int8 pass incl. its quantize dispatch) and of the fused gate/up GEMV (BM_GemvGgmlFused x 0 / 2 / 1).
# Usage (repo root on the H200 machine; release wgrt, wgrt_bench_batch, wgrt_bench_ops in .devlibs/new built from
# this branch): bash bench/h200/scripts/run22_kqint8.sh
set -u
source bench/h200/scripts/lib.sh
synth l1b-Q4_0 llama-3.2-1b q4_0
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M
quantize l1b-Q6_K llama-3.2-1b Q6_K
$N info 2>&1 | grep -E "block-format GEMV" | head -2
B="-p 128 -n 64 -r 2 --tg-mode pipelined"
sweep "Q4_0 (reference)" l1b-Q4_0 "$B"
for f in Q4_K_M Q6_K; do for fg in 1 0; do for i8 in 2 1 0; do
  [ $i8 = 1 ] && { [ $fg = 0 ] || [ $f = Q6_K ]; } && continue  # unfused, 2 and 1 differ only where 2 does not fit
  [ $f = Q6_K ] && [ $fg = 0 ] && continue
  sweep "$f fused $fg int8 $i8" l1b-$f "$B" WGRT_FUSED_GEMV=$fg WGRT_GEMV_KQ_INT8=$i8
done; done; done
sweep "Q4_K_M int8 2 RPT 1" l1b-Q4_K_M "$B" WGRT_GEMV_GGML=blocks,1
BB=.devlibs/new/wgrt_bench_batch
for i8 in 2 0; do
  echo "-- serving batch Q4_K_M int8 $i8"
  [ -x $BB ] && WGRT_GEMV_KQ_INT8=$i8 timeout 30 $BB -m $M/l1b-Q4_K_M.gguf --rows 1,2,4,8 --depth 128 --steps 16 \
    --ctx 1024 2>&1 | grep -E '^\|' || echo "(no $BB)"
done
[ -x .devlibs/new/wgrt_bench_ops ] && timeout 50 .devlibs/new/wgrt_bench_ops \
  --benchmark_filter='GemvGgml/(12|14)/2048/8192/(1|8)/(1|2|3)/|GemvGgmlFused/(12|14)/2048/8192/(1|8)/1/' 2>&1 | grep -E "Gemv" \
  || echo "(no .devlibs/new/wgrt_bench_ops: per-kernel rows skipped)"
