#!/usr/bin/env bash
# H200 run 22 (prefattn): prefill attention (sdpa_flash_prefill.wgsl) variants on synth Llama-3.2-1B Q4_0 (GQA 4,
# D 64) and Qwen2.5-0.5B Q4_0 (GQA 7, D 64), pp512 and pp2048 (-n 1): rows per invocation (WGRT_SDPA_PREFILL 4 =
# the default, 1 and 2 smaller blocks) and split-KV prefill (WGRT_SDPA_PREFILL_SPLIT=MIN_CHUNK,TARGET:
# keys split into chunks >= MIN_CHUNK where the blocks are fewer than TARGET workgroups; 0 = off, the default).
# Then wgrt_bench_attention's GPU time of one 512-token attention chunk (pos 0 and 1536) per variant, and the
# per-kernel profile of a ~2000-token prefill with the best-guess split. Under 60 s.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M
N=.devlibs/new/wgrt
[ -f $M/l1b-Q4_0.gguf ] || $N synth --preset llama-3.2-1b --type q4_0 -o $M/l1b-Q4_0.gguf >/dev/null
[ -f $M/q05-Q4_0.gguf ] || $N synth --preset qwen2.5-0.5b --type q4_0 -o $M/q05-Q4_0.gguf >/dev/null
$N info 2>&1 | grep -i "prefill attention"
pp() { local f=$1 p=$2; shift 2; env "$@" timeout 30 $N bench -m $M/$f.gguf -p $p -n 1 -r 2 2>&1 | grep -E '^\| pp' | tr -s ' '; }
for v in "WGRT_SDPA_PREFILL=4" "WGRT_SDPA_PREFILL=1" "WGRT_SDPA_PREFILL=1 WGRT_SDPA_PREFILL_SPLIT=256,1024" \
         "WGRT_SDPA_PREFILL=1 WGRT_SDPA_PREFILL_SPLIT=256,2048" "WGRT_SDPA_PREFILL=2 WGRT_SDPA_PREFILL_SPLIT=256,1024" \
         "WGRT_SDPA_PREFILL=4 WGRT_SDPA_PREFILL_SPLIT=128,2048"; do
  echo "-- l1b-Q4_0 $v: $(pp l1b-Q4_0 512 $v) $(pp l1b-Q4_0 2048 $v)"
done
for v in "WGRT_SDPA_PREFILL=4" "WGRT_SDPA_PREFILL=1" "WGRT_SDPA_PREFILL=1 WGRT_SDPA_PREFILL_SPLIT=256,1024"; do
  echo "-- q05-Q4_0 $v: $(pp q05-Q4_0 512 $v) $(pp q05-Q4_0 2048 $v)"
done
if [ -x .devlibs/new/wgrt_bench_attention ]; then
  timeout 25 .devlibs/new/wgrt_bench_attention --benchmark_filter=SdpaPrefill --benchmark_min_time=0.05 2>&1 | grep BM_
else echo "(no .devlibs/new/wgrt_bench_attention: per-kernel rows skipped)"; fi
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_long.txt','w').write(' '.join(random.choice(w) for _ in range(1600)))"
echo "== profile, ~2000-token prefill in 512-token chunks, rpt 1, split 256,1024"
WGRT_SDPA_PREFILL_SPLIT=256,1024 timeout 20 $N generate -m $M/l1b-Q4_0.gguf -f /tmp/p_long.txt -n 1 -c 4096 --profile 2>&1 >/dev/null | grep -iE 'sdpa|total' | head -6
