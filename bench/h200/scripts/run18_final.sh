#!/usr/bin/env bash
# H200 run 18 (final, merged main): new = main after issues 13/15/17/18 work, base = main at this session's start
# (plus the disk cache). Llama-3.2-1B and Qwen2.5-0.5B Q4_0 and Llama-3.2-1B Q4_K_M (llama.cpp's quantizer), with
# llama.cpp's Vulkan llama-bench on the same files in the same run.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M
N=.devlibs/new/wgrt; B=.devlibs/base/wgrt
$N info 2>&1 | sed -n '/Tuning policy/,$p'
$N synth --preset llama-3.2-1b --type q4_0 -o $M/llama-3.2-1b-Q4_0.gguf >/dev/null || echo "synth failed"
$N synth --preset qwen2.5-0.5b --type q4_0 -o $M/qwen2.5-0.5b-Q4_0.gguf >/dev/null || echo "synth failed"
mkdir -p /tmp/lc && tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
$N synth --preset llama-3.2-1b --type f16 -o $M/llama-3.2-1b-f16.gguf >/dev/null
.devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/llama-3.2-1b-f16.gguf $M/llama-3.2-1b-Q4_K_M.gguf Q4_K_M >/dev/null 2>&1 || echo "quantize failed"
rm -f $M/llama-3.2-1b-f16.gguf
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
for f in $M/llama-3.2-1b-Q4_0.gguf $M/qwen2.5-0.5b-Q4_0.gguf $M/llama-3.2-1b-Q4_K_M.gguf; do
  b=$(basename $f)
  echo "== base $b p128/n128"; $B bench -m $f -p 128 -n 128 -r 3 2>&1 | grep -E '^\| (pp|tg)'
  echo "== new $b p128/n128 (pipelined)"; $N bench -m $f -p 128 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| (pp|tg)'
  echo "== base $b p2048/n128"; $B bench -m $f -p 2048 -n 128 -r 2 2>&1 | grep -E '^\| (pp|tg)'
  echo "== new $b p2048/n128 (pipelined)"; $N bench -m $f -p 2048 -n 128 -r 2 --tg-mode pipelined 2>&1 | grep -E '^\| (pp|tg)'
  echo "== base $b p512"; $B bench -m $f -p 512 -n 8 -r 3 2>&1 | grep -E '^\| pp'
  echo "== new $b p512"; $N bench -m $f -p 512 -n 8 -r 3 2>&1 | grep -E '^\| pp'
  echo "== new $b p512 WGRT_GEMM_BIG=0 (the previous tiled GEMM)"; WGRT_GEMM_BIG=0 $N bench -m $f -p 512 -n 8 -r 3 2>&1 | grep -E '^\| pp'
  echo "== llama-bench $b fa1"
  /tmp/llama-bench -m $f -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
  /tmp/llama-bench -m $f -ngl 99 -r 3 -p 0 -n 128 -d 128,2048 -fa 1 2>&1 | grep -E '^\| .*tg'
  echo "== llama-bench $b fa1 matrix cores off"
  GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 /tmp/llama-bench -m $f -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
done
for c in 25 100; do
  echo "== new llama-3.2-1b Q4_0 tg128 greedy WGRT_SUBMIT_CHUNK=$c"
  WGRT_SUBMIT_CHUNK=$c $N bench -m $M/llama-3.2-1b-Q4_0.gguf -p 128 -n 128 -r 3 --tg-mode greedy 2>&1 | grep -E '^\| tg'
done
echo "== new llama-3.2-1b Q4_0 tg128 greedy (submit chunk 0)"; $N bench -m $M/llama-3.2-1b-Q4_0.gguf -p 128 -n 128 -r 3 --tg-mode greedy 2>&1 | grep -E '^\| tg'
