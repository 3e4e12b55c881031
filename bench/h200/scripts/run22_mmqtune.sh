#!/usr/bin/env bash
# H200 run 22 (mmqtune, issue 13 prefill): the int8 prefill GEMM tile variants (gemm_mmq_body.wgsl, shared by
# gemm_mmq.wgsl for Q4_0 files and gemm_mmq_ggml.wgsl for Q4_K_M) through WGRT_GEMM_MMQ_TILE=TM,TN[,KB]
# (TM, TN 64 or 128 outputs per workgroup of 256; KB 32-k blocks per staged slice) and the tile rule's target
# (WGRT_GEMM_MMQ_TARGET workgroups; 0 = always 128x128, the previous kernel). First per-kernel GPU time
# (wgrt_bench_ops GEMM rows at M 512: N 2048, 512, 8192 and K 8192), then wgrt bench pp512 / pp2048 on the 1B
# Q4_0 and Q4_K_M for the main variants. Budget < 60 s (files reused from /tmp/m when a previous script made them).
# Usage (repo root on the H200 machine, release binaries in .devlibs/new): bash bench/h200/scripts/run22_mmqtune.sh
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M /tmp/lc
N=.devlibs/new/wgrt
B=.devlibs/new/wgrt_bench_ops
$N info 2>&1 | grep -E "int8 GEMM"
[ -s $M/l1b-Q4_0.gguf ] || $N synth --preset llama-3.2-1b --type q4_0 --init-std 0.2 -o $M/l1b-Q4_0.gguf >/dev/null
if [ ! -s $M/l1b-Q4_K_M.gguf ]; then
  tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
  $N synth --preset llama-3.2-1b --type f16 --init-std 0.2 -o $M/l1b-f16.gguf >/dev/null
  .devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/l1b-f16.gguf $M/l1b-Q4_K_M.gguf Q4_K_M >/dev/null 2>&1 || echo "quantize failed"
  rm -f $M/l1b-f16.gguf
fi
# label, then env assignments
V=("rule|" "128x128 cvt0 (previous kernel)|WGRT_GEMM_MMQ_TILE=128,128,2,0" "128x128|WGRT_GEMM_MMQ_TARGET=0"
   "64x128|WGRT_GEMM_MMQ_TILE=64,128" "64x64|WGRT_GEMM_MMQ_TILE=64,64" "128x64|WGRT_GEMM_MMQ_TILE=128,64"
   "128x128 kb1|WGRT_GEMM_MMQ_TILE=128,128,1" "64x128 kb4|WGRT_GEMM_MMQ_TILE=64,128,4"
   "64x128 cvt0|WGRT_GEMM_MMQ_TILE=64,128,2,0" "rule target 256|WGRT_GEMM_MMQ_TARGET=256")
echo "== GPU time per GEMM (us), M 512 (bench_ops; q4 = Q4_0's kernel, Q4_K = the block-format kernel)"
if [ -x $B ]; then for v in "${V[@]}"; do
  echo "-- ${v%%|*}"
  env ${v#*|} timeout 20 $B --benchmark_min_time=0.05 --benchmark_filter='BM_Gemm/512/.*/1/|BM_GemmGgml/12/' 2>&1 \
    | grep -E '^BM_' | awk '{sub("/manual_time", "", $1); printf " %s %s |", $1, $2} END {print ""}'
done; fi
echo "== wgrt bench prefill (tok/s)"
for v in "${V[0]}" "${V[1]}" "${V[2]}" "${V[3]}" "${V[4]}"; do
  for f in l1b-Q4_0 l1b-Q4_K_M; do
    r=$(env ${v#*|} timeout 25 $N bench -m $M/$f.gguf -p 512 -n 4 -r 2 2>&1 | grep -E '^\| pp' | tr -s ' ')
    echo "-- ${v%%|*} $f: $r"
  done
done
for v in "${V[0]}" "${V[1]}"; do
  for f in l1b-Q4_0 l1b-Q4_K_M; do
    r=$(env ${v#*|} timeout 25 $N bench -m $M/$f.gguf -p 2048 -n 4 -r 2 2>&1 | grep -E '^\| pp' | tr -s ' ')
    echo "-- ${v%%|*} $f: $r"
  done
done
echo "== done"
