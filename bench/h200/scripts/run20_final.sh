#!/usr/bin/env bash
# H200 run 20 (final, merged main): decode with the fused layer body (fuse), block-format GEMV (kquant), int8
# prefill GEMM (mmq), GPU sampling (sampling), against llama.cpp's Vulkan llama-bench on the same files in the same
# run; then wgrt serve vs llama-server (peer) at 1/2/4/8 streams on Llama-3.2-1B Q4_0 and Q4_K_M.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M /tmp/lc /tmp/lsp
N=.devlibs/new/wgrt
$N info 2>&1 | sed -n '/Tuning policy/,$p' | head -20
$N synth --preset llama-3.2-1b --type q4_0 -o $M/l1b-Q4_0.gguf >/dev/null
$N synth --preset qwen2.5-0.5b --type q4_0 -o $M/q05-Q4_0.gguf >/dev/null
tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
$N synth --preset llama-3.2-1b --type f16 -o $M/l1b-f16.gguf >/dev/null
for t in Q4_K_M Q6_K; do .devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/l1b-f16.gguf $M/l1b-$t.gguf $t >/dev/null 2>&1 || echo "quantize $t failed"; done
rm -f $M/l1b-f16.gguf
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
tg() { "$@" 2>&1 | grep -E '^\| (tg|pp)|weights' | head -3; }
echo "== decode tg128 pipelined (fused body default on GPUs)"
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M l1b-Q6_K; do for d in 128 2048; do
  echo "-- $f d$d"; tg $N bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined
done; done
echo "-- l1b-Q4_0 d128 WGRT_FUSED_GEMV=0"; WGRT_FUSED_GEMV=0 tg $N bench -m $M/l1b-Q4_0.gguf -p 128 -n 128 -r 3 --tg-mode pipelined
echo "-- q05-Q4_0 d128 WGRT_FUSED_GEMV=0"; WGRT_FUSED_GEMV=0 tg $N bench -m $M/q05-Q4_0.gguf -p 128 -n 128 -r 3 --tg-mode pipelined
echo "-- l1b-Q4_0 d128 GPU sampling (temp 0.8 top-p 0.95)"; tg $N bench -m $M/l1b-Q4_0.gguf -p 128 -n 128 -r 3 --tg-mode sample
echo "-- l1b-Q4_0 d128 CPU sampling"; tg $N bench -m $M/l1b-Q4_0.gguf -p 128 -n 128 -r 2 --tg-mode sample-cpu
echo "== prefill pp512 / pp2048"
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M; do for p in 512 2048; do
  echo "-- $f pp$p"; $N bench -m $M/$f.gguf -p $p -n 4 -r 3 2>&1 | grep -E '^\| pp'
done; done
echo "== llama-bench fa1 tg128 @ d128,d2048"
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M l1b-Q6_K; do
  echo "-- $f"; /tmp/llama-bench -m $M/$f.gguf -ngl 99 -r 3 -p 0 -n 128 -d 128,2048 -fa 1 2>&1 | grep -E '^\| .*tg'
done
echo "== llama-bench fa1 pp512,2048 matrix cores off (and on for l1b-Q4_0)"
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M; do
  echo "-- $f coopmat off"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 /tmp/llama-bench -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
done
echo "-- l1b-Q4_0 coopmat on"; /tmp/llama-bench -m $M/l1b-Q4_0.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
