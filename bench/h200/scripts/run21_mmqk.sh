#!/usr/bin/env bash
# H200 run 21 (mmqk): the int8 prefill GEMM for block formats (gemm_mmq_ggml.wgsl, linear_ggml's int8 route)
# against the f32 block-format GEMM it replaces on GPUs (gemm_big.wgsl B_MODE 2, WGRT_GEMM_MMQ_GGML=0), same
# binary, same files: Llama-3.2-1B Q4_K_M and Q6_K (llama.cpp's quantizer on `wgrt synth --type f16`), pp512 and
# pp2048. Then one 620-token profiled prefill per route on Q4_K_M for the per-kernel GPU time (the run 21 profile
# had gemm_big 96 x 941 us). Budget < 60 s (files reused from /tmp/m when a previous script made them).
# Usage (repo root on the H200 machine, release binaries in .devlibs/new): bash bench/h200/scripts/run21_mmqk.sh
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M /tmp/lc
N=.devlibs/new/wgrt
$N info 2>&1 | grep -E "int8 GEMM"
if [ ! -s $M/l1b-Q4_K_M.gguf ] || [ ! -s $M/l1b-Q6_K.gguf ]; then
  tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
  $N synth --preset llama-3.2-1b --type f16 -o $M/l1b-f16.gguf >/dev/null
  for t in Q4_K_M Q6_K; do
    [ -s $M/l1b-$t.gguf ] || .devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/l1b-f16.gguf $M/l1b-$t.gguf $t >/dev/null 2>&1 || echo "quantize $t failed"
  done
  rm -f $M/l1b-f16.gguf
fi
for f in l1b-Q4_K_M l1b-Q6_K; do for p in 512 2048; do for mmq in 1 0; do
  echo "-- $f pp$p WGRT_GEMM_MMQ_GGML=$mmq"
  WGRT_GEMM_MMQ_GGML=$mmq timeout 60 $N bench -m $M/$f.gguf -p $p -n 4 -r 2 2>&1 | grep -E '^\| pp'
done; done; done
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_mmqk.txt','w').write(' '.join(random.choice(w) for _ in range(320)))"
for mmq in 1 0; do
  echo "== l1b-Q4_K_M 620-token prefill profile WGRT_GEMM_MMQ_GGML=$mmq"
  WGRT_GEMM_MMQ_GGML=$mmq timeout 60 $N generate -m $M/l1b-Q4_K_M.gguf -f /tmp/p_mmqk.txt -n 1 --prefill-chunk 2048 -c 4096 --profile 2>&1 >/dev/null \
    | grep -E "gemm|quantize|total" | head -8
done
