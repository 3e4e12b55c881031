#!/usr/bin/env bash
# H200 run 23a (profile, start of the sixth session): per-kernel GPU time of decode at depth ~130 and ~2000 for
# Llama-3.2-1B and Qwen2.5-0.5B, Q4_0 and llama.cpp-quantized Q4_K_M (std-0.2 weights), and of a ~1000-token
# prefill of the 1B in 512-token chunks; a sweep of the decode split rule at depth 2048. Directs this session's
# kernel work (K-quant decode gap, decode at depth, 1B Q4_0 prefill). ~4 min.
set -u
source bench/h200/scripts/lib.sh
$N info 2>&1 | sed -n '/Tuning policy/,$p' | head -30
for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do pre=${p%%:*}; s=${p##*:}
  synth $s-Q4_0 $pre q4_0 --init-std 0.2
  quantize $s-Q4_K_M $pre Q4_K_M --init-std 0.2
done
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_short.txt','w').write(' '.join(random.choice(w) for _ in range(60)))
open('/tmp/p_long.txt','w').write(' '.join(random.choice(w) for _ in range(960)))
open('/tmp/p_pre.txt','w').write(' '.join(random.choice(w) for _ in range(480)))"
prof() {  # FILE PROMPT N [ENV...]: the kernel table of one generate --profile
  local f=$1 pr=$2 n=$3; shift 3
  echo "== profile $f prompt $pr -n $n $*"
  env "$@" timeout 60 "$N" generate -m "$M/$f.gguf" -f /tmp/p_$pr.txt -n "$n" --temp 0 -c 4096 --profile 2>&1 >/dev/null |
    grep -vE '^(model|Once)' | head -30
}
for f in l1b-Q4_0 l1b-Q4_K_M q05-Q4_0 q05-Q4_K_M; do prof $f short 129; done
for f in l1b-Q4_0 l1b-Q4_K_M; do prof $f long 129; done
for f in l1b-Q4_0 l1b-Q4_K_M; do prof $f pre 1; done
echo "== decode split rule sweep, l1b-Q4_0 d2048 (MIN_CONTEXT,MIN_CHUNK,TARGET_WORKGROUPS)"
for s in 256,128,512 256,64,512 256,64,1024 256,32,2048 256,256,256; do
  sweep "split $s" l1b-Q4_0 "-p 2048 -n 64 -r 2 --tg-mode pipelined" WGRT_SDPA_SPLIT=$s
done
sweep "q05 d128 default" q05-Q4_0 "-p 128 -n 128 -r 3 --tg-mode pipelined"
sweep "l1b d128 default" l1b-Q4_0 "-p 128 -n 128 -r 3 --tg-mode pipelined"
echo "== done"
