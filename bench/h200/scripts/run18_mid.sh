#!/usr/bin/env bash
# H200 run 18 (mid-session): issue 13 work in progress. new = main + decode (GPU-resident greedy loop, resize
# skipping, submit chunks) + attn (flash attention), base = main before them (with the disk cache). Same files,
# llama.cpp Vulkan llama-bench in the same run. Then Dawn's dispatch floor (bench_dispatch) and cold start.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M
N=.devlibs/new/wgrt; B=.devlibs/base/wgrt; D=.devlibs/new/bench_dispatch
$N info 2>&1 | sed -n 1,14p
$N synth --preset llama-3.2-1b --type q4_0 -o $M/llama-3.2-1b.gguf >/dev/null || echo "synth failed"
$N synth --preset qwen2.5-0.5b --type q4_0 -o $M/qwen2.5-0.5b.gguf >/dev/null || echo "synth failed"
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
for p in llama-3.2-1b qwen2.5-0.5b; do
  f=$M/$p.gguf
  for r in 1 2; do
    echo "== base $p p128/n128 round $r"; $B bench -m $f -p 128 -n 128 -r 3 2>&1 | grep -E '^\| (pp|tg)'
    for m in greedy pipelined; do echo "== new --tg-mode $m $p p128/n128 round $r"; $N bench -m $f -p 128 -n 128 -r 3 --tg-mode $m 2>&1 | grep -E '^\| (pp|tg)'; done
  done
  echo "== base $p p2048/n128"; $B bench -m $f -p 2048 -n 128 -r 2 2>&1 | grep -E '^\| (pp|tg)'
  echo "== new pipelined $p p2048/n128"; $N bench -m $f -p 2048 -n 128 -r 2 --tg-mode pipelined 2>&1 | grep -E '^\| (pp|tg)'
  echo "== new legacy attention $p p2048/n128"; WGRT_SDPA=legacy $N bench -m $f -p 2048 -n 128 -r 2 --tg-mode pipelined 2>&1 | grep -E '^\| (pp|tg)'
  echo "== base $p p512"; $B bench -m $f -p 512 -n 8 -r 3 2>&1 | grep -E '^\| pp'
  echo "== new $p p512"; $N bench -m $f -p 512 -n 8 -r 3 2>&1 | grep -E '^\| pp'
  echo "== llama-bench $p fa1"
  /tmp/llama-bench -m $f -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
  /tmp/llama-bench -m $f -ngl 99 -r 3 -p 0 -n 128 -d 128,2048 -fa 1 2>&1 | grep -E '^\| .*tg'
  echo "== llama-bench $p fa1 matrix cores off"
  GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 /tmp/llama-bench -m $f -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
done
for e in 64 8192; do echo "== bench_dispatch: 200 dispatches per chain, $e elements"; $D --n 200 --reps 20 --elems $e; done
echo "== bench_dispatch 20 per chain"; $D --n 20 --reps 20
echo "== decode profile new (32 tokens)"
WGRT_TIMESTAMP_QUERY=1 $N generate -m $M/llama-3.2-1b.gguf -p "hello" -n 32 --profile 2>&1 >/dev/null | head -30
