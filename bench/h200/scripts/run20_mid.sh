#!/usr/bin/env bash
# H200 run 20 (mid-session): the branches kquant (layout-aware block-format GEMV), fuse (q4gsw f16 scales + fused
# decode GEMVs) and mmq (int8 prefill GEMM), each as its own release binary, against llama.cpp's Vulkan
# llama-bench on the same files in the same run. Binaries: .devlibs/{kquant,fuse,mmq}/wgrt.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M /tmp/lc
K=.devlibs/kquant/wgrt; F=.devlibs/fuse/wgrt; Q=.devlibs/mmq/wgrt
$F info 2>&1 | sed -n '/Tuning policy/,$p' | head -20
$F synth --preset llama-3.2-1b --type q4_0 -o $M/l1b-Q4_0.gguf >/dev/null
$F synth --preset qwen2.5-0.5b --type q4_0 -o $M/q05-Q4_0.gguf >/dev/null
tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
$F synth --preset llama-3.2-1b --type f16 -o $M/l1b-f16.gguf >/dev/null
for t in Q4_K_M Q6_K; do .devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/l1b-f16.gguf $M/l1b-$t.gguf $t >/dev/null 2>&1 || echo "quantize $t failed"; done
rm -f $M/l1b-f16.gguf
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
tg() { "$@" 2>&1 | grep -E '^\| tg|weight' | head -3; }
echo "== fuse: Q4_0 tg128 pipelined, fused vs WGRT_FUSED_GEMV=0"
for f in l1b-Q4_0 q05-Q4_0; do for d in 128 2048; do
  echo "-- $f d$d fused"; tg $F bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined
  echo "-- $f d$d unfused"; WGRT_FUSED_GEMV=0 tg $F bench -m $M/$f.gguf -p $d -n 128 -r 2 --tg-mode pipelined
done; done
echo "== kquant: tg128 pipelined d128 per type, new vs WGRT_GEMV_GGML=generic"
for f in l1b-Q4_0 l1b-Q4_K_M l1b-Q6_K; do
  echo "-- $f new"; tg $K bench -m $M/$f.gguf -p 128 -n 128 -r 3 --tg-mode pipelined
  [ $f != l1b-Q4_0 ] && { echo "-- $f generic"; WGRT_GEMV_GGML=generic tg $K bench -m $M/$f.gguf -p 128 -n 128 -r 2 --tg-mode pipelined; }
done
echo "== mmq: pp512/pp2048, int8 vs WGRT_GEMM_MMQ=0"
for f in l1b-Q4_0 q05-Q4_0; do for p in 512 2048; do
  echo "-- $f pp$p mmq"; $Q bench -m $M/$f.gguf -p $p -n 4 -r 3 2>&1 | grep -E '^\| pp'
  echo "-- $f pp$p f32"; WGRT_GEMM_MMQ=0 $Q bench -m $M/$f.gguf -p $p -n 4 -r 2 2>&1 | grep -E '^\| pp'
done; done
echo "== llama-bench fa1 tg128 d128/d2048 and pp (coopmat off)"
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M l1b-Q6_K; do
  echo "-- $f"; /tmp/llama-bench -m $M/$f.gguf -ngl 99 -r 3 -p 0 -n 128 -d 128,2048 -fa 1 2>&1 | grep -E '^\| .*tg'
done
for f in l1b-Q4_0 q05-Q4_0; do
  echo "-- $f coopmat off"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 /tmp/llama-bench -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
done
echo "== kquant serve Q4_K_M 1 vs 8 streams"
S=/tmp/serve20; mkdir -p $S
$K synth --preset llama-3.2-1b --type f16 --init-std 0.2 -o $S/f16.gguf >/dev/null
.devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $S/f16.gguf $S/l1b-Q4_K_M.gguf Q4_K_M >/dev/null 2>&1; rm -f $S/f16.gguf
export WGRT_TEST_PORTS=18100-18199 TMPDIR=/tmp
timeout 200 python3 bench/serve_bench.py --wgrt "$K" --max-tokens 128 --requests 2 -- -m $S/l1b-Q4_K_M.gguf --ctx 1024 --parallel 8 2>&1 | tail -12
