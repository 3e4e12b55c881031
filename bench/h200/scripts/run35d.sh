#!/usr/bin/env bash
# H200 run 35d (fifteenth session), ~3 min: why run 35c's 0.5B Q4_K_M pp512 was 8,469 tok/s (+- 1,262) at the new
# default chunk (2048) while its pp2048 was 34,963: pp512 at chunks 512 and 2048, twice each, on that file and on the
# 0.5B Q4_0; then where a 512-token prefill's GPU time goes at each chunk (generate --profile).
set -u; source bench/h200/scripts/lib.sh
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
for i in 1 2; do timeout 60 $N bench -m $M/q05-Q4_0.gguf -p 512 -n 32 -r 2 >/dev/null 2>&1; done
for pass in 1 2; do for f in q05-Q4_K_M q05-Q4_0; do for c in 512 2048; do
  echo "-- PRE $f chunk $c $(timeout 60 $N bench -m $M/$f.gguf -p 512 -n 4 -r 3 --prefill-chunk $c 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done; done; done
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_512.txt','w').write(' '.join(random.choice(w) for _ in range(84)))"
for c in 512 2048; do
  echo "== PROFILE q05-Q4_K_M chunk $c"
  timeout 60 $N generate -m $M/q05-Q4_K_M.gguf -f /tmp/p_512.txt -n 1 -c 4096 --prefill-chunk $c --profile 2>&1 >/dev/null | grep -vE '^Once' | head -24
done
echo "== done"
