#!/usr/bin/env bash
# H200: issue 11 speed check (base = main before the interface change, new = after) + llama.cpp peer, same files.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M
B=.devlibs/base/wgrt; N=.devlibs/new/wgrt
$N info 2>&1 | sed -n 1,12p
for p in smollm2-135m qwen2.5-0.5b llama-3.2-1b; do $B synth --preset $p --type q4_0 -o $M/$p.gguf >/dev/null || echo "synth $p failed"; done
for p in smollm2-135m llama-3.2-1b qwen2.5-0.5b; do
  for r in 1 2; do for bin in base new; do
    echo "== $bin $p pp128/tg128 round $r"; .devlibs/$bin/wgrt bench -m $M/$p.gguf -p 128 -n 128 -r 3 2>&1 | tail -4
  done; done
done
for bin in base new; do echo "== $bin llama-3.2-1b pp512"; .devlibs/$bin/wgrt bench -m $M/llama-3.2-1b.gguf -p 512 -n 32 -r 3 2>&1 | tail -4; done
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
for p in smollm2-135m llama-3.2-1b qwen2.5-0.5b; do
  echo "== llama-bench $p"; /tmp/llama-bench -m $M/$p.gguf -ngl 99 -r 3 -p 128,512 -n 0 -fa 1 2>&1 | grep -E '^\|'
  /tmp/llama-bench -m $M/$p.gguf -ngl 99 -r 3 -p 0 -n 128 -d 128 -fa 1 2>&1 | grep -E '^\| .*tg'
done
