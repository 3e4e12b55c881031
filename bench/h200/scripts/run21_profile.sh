#!/usr/bin/env bash
# H200 run 21 (profile): per-kernel GPU time of decode at depth ~128 and ~2048 and of a 2048-token prefill, for
# Llama-3.2-1B Q4_0 and Q4_K_M, to direct this session's speed work. Each case runs `generate --profile` twice
# on the same prompt, with -n 1 and -n 129: the difference of the two tables is 128 decode steps.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M /tmp/lc
N=.devlibs/new/wgrt
$N synth --preset llama-3.2-1b --type q4_0 -o $M/l1b-Q4_0.gguf >/dev/null
tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
$N synth --preset llama-3.2-1b --type f16 -o $M/l1b-f16.gguf >/dev/null
.devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/l1b-f16.gguf $M/l1b-Q4_K_M.gguf Q4_K_M >/dev/null 2>&1 || echo "quantize failed"
rm -f $M/l1b-f16.gguf
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_short.txt','w').write(' '.join(random.choice(w) for _ in range(100)))
open('/tmp/p_long.txt','w').write(' '.join(random.choice(w) for _ in range(320)))"
for f in l1b-Q4_0 l1b-Q4_K_M; do for p in short long; do for n in 1 129; do
  echo "== $f prompt $p -n $n"
  $N generate -m $M/$f.gguf -f /tmp/p_$p.txt -n $n --prefill-chunk 2048 -c 4096 --profile 2>&1 >/dev/null | grep -vE '^(model|Once)' | head -40
done; done; done
