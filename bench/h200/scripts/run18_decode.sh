#!/usr/bin/env bash
# H200: issue 13 decode. (1) Dawn's per-dispatch floor (bench/bench_dispatch.cpp): dependent vs independent
# chains, same vs distinct buffers, one pass vs many, bind-group / dynamic-offset variants, at 1, 32 and 128
# workgroups per dispatch, with and without Dawn's speed toggles. (2) wgrt decode on Llama-3.2-1B / Qwen2.5-0.5B
# Q4_0 (tg128 after a 128-token prompt) next to llama.cpp's Vulkan tg128 at depth 128, same files, same run.
# Binaries: .devlibs/new/wgrt and .devlibs/new/bench_dispatch (build/bench/wgrt_bench_dispatch) of this commit.
set -u
source .devlibs/env.sh
N=.devlibs/new/wgrt; D=.devlibs/new/bench_dispatch
M=/tmp/m; mkdir -p $M
$N info 2>&1 | sed -n 1,12p
for e in 64 2048 8192; do
  echo "== bench_dispatch: 200 dispatches per chain, $e elements per dispatch"; $D --n 200 --reps 20 --elems $e
done
echo "== bench_dispatch: 20 dispatches per chain (fixed cost per submit shows in the slope vs gpu us/d)"; $D --n 20 --reps 20
echo "== bench_dispatch with WGRT_DAWN_TOGGLES=skip_validation,disable_robustness,disable_workgroup_init"
WGRT_DAWN_TOGGLES=skip_validation,disable_robustness,disable_workgroup_init $D --n 200 --reps 20 2>&1 | grep -v '^dawn:'
for p in llama-3.2-1b qwen2.5-0.5b; do $N synth --preset $p --type q4_0 -o $M/$p.gguf >/dev/null || echo "synth $p failed"; done
# Decode modes of `wgrt bench` (if this build has --tg-mode: logits = read all logits per token (the old
# bench), greedy = the generate loop's argmax read-back, pipelined = GPU-resident greedy loop).
modes=""; $N bench --help 2>&1 | grep -q -- --tg-mode && modes="logits greedy pipelined"
for p in llama-3.2-1b qwen2.5-0.5b; do
  for r in 1 2; do
    if [ -z "$modes" ]; then echo "== wgrt $p pp128/tg128 round $r"; $N bench -m $M/$p.gguf -p 128 -n 128 -r 3 2>&1 | tail -4
    else for m in $modes; do echo "== wgrt $p pp128/tg128 --tg-mode $m round $r"; $N bench -m $M/$p.gguf -p 128 -n 128 -r 3 --tg-mode $m 2>&1 | tail -4; done; fi
  done
done
if [ -n "$modes" ]; then
  for c in 25 50 100; do
    echo "== wgrt llama-3.2-1b tg128 --tg-mode greedy, WGRT_SUBMIT_CHUNK=$c (submit every $c dispatches)"
    WGRT_SUBMIT_CHUNK=$c $N bench -m $M/llama-3.2-1b.gguf -p 128 -n 128 -r 3 --tg-mode greedy 2>&1 | tail -1
  done
  echo "== wgrt llama-3.2-1b depth 2048 (p2048), pipelined"; $N bench -m $M/llama-3.2-1b.gguf -p 2048 -n 128 -r 2 --tg-mode pipelined 2>&1 | tail -2
fi
echo "== wgrt llama-3.2-1b decode profile (per-kernel GPU time, 32 tokens)"
WGRT_TIMESTAMP_QUERY=1 $N generate -m $M/llama-3.2-1b.gguf -p "hello" -n 32 --profile 2>&1 >/dev/null | head -30
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
for p in llama-3.2-1b qwen2.5-0.5b; do
  echo "== llama-bench $p"; /tmp/llama-bench -m $M/$p.gguf -ngl 99 -r 3 -p 0 -n 128 -d 128 -fa 1 2>&1 | grep -E '^\| .*tg'
done
