#!/usr/bin/env bash
# H200 run 21 (attnpre): prefill attention route sweep on Llama-3.2-1B Q4_0 (head dim 64, GQA 4): the register-
# blocked kernel (sdpa_flash_prefill.wgsl) at 1, 2 and 4 query rows per invocation (blocks of 16/32/64 rows,
# WGRT_SDPA_PREFILL) against the previous wide flash route (WGRT_SDPA_PREFILL=0), pp512 and pp2048; then the
# per-kernel GPU time of one ~2000-token prefill on the default route, and (when .devlibs/new has it)
# wgrt_bench_attention's GPU time of one 512-token attention chunk at pos 0 and 1536 per route. Under 60 s.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M
N=.devlibs/new/wgrt
[ -f $M/l1b-Q4_0.gguf ] || $N synth --preset llama-3.2-1b --type q4_0 -o $M/l1b-Q4_0.gguf >/dev/null
$N info 2>&1 | grep -i "prefill attention"
if [ -x .devlibs/new/wgrt_bench_attention ]; then
  .devlibs/new/wgrt_bench_attention --benchmark_filter=SdpaPrefill --benchmark_min_time=0.05 2>&1 | grep BM_
else echo "(no .devlibs/new/wgrt_bench_attention: per-kernel rows skipped)"; fi
for r in 0 4 2 1; do
  echo "-- WGRT_SDPA_PREFILL=$r"
  for p in 512 2048; do WGRT_SDPA_PREFILL=$r $N bench -m $M/l1b-Q4_0.gguf -p $p -n 4 -r 2 2>&1 | grep -E '^\| pp'; done
done
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_long.txt','w').write(' '.join(random.choice(w) for _ in range(1600)))"
echo "== profile, ~2000-token prefill, default route"
timeout 30 $N generate -m $M/l1b-Q4_0.gguf -f /tmp/p_long.txt -n 1 --prefill-chunk 2048 -c 4096 --profile 2>&1 >/dev/null | grep -iE 'sdpa|attn|total|gemm' | head -12
