#!/usr/bin/env bash
# H200 run 21 (final, merged main): this session's decode attention (sdpa_decode), register-blocked flash prefill,
# fused block-format layer body, int8 MMQ for block formats, bandwidth GEMV variant (s8, opt-in), against
# llama.cpp's Vulkan llama-bench (fa1; prefill also with matrix cores off) on the same files in the same run; then
# the knob sweeps the helpers asked for, per-kernel profiles, wgrt serve 1/8 streams with GPU sampling, and the
# ViT-B/16 ONNX. One batch (~7 min): the device budget left is ~12 min. Most important rows first.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M /tmp/lc
N=.devlibs/new/wgrt
T() { timeout "$@"; }
$N info 2>&1 | sed -n '/Tuning policy/,$p' | head -40
# std 0.2 weights (serve needs varied text; speed does not depend on the values)
$N synth --preset llama-3.2-1b --type q4_0 --init-std 0.2 -o $M/l1b-Q4_0.gguf >/dev/null
$N synth --preset qwen2.5-0.5b --type q4_0 --init-std 0.2 -o $M/q05-Q4_0.gguf >/dev/null
tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
$N synth --preset llama-3.2-1b --type f16 --init-std 0.2 -o $M/l1b-f16.gguf >/dev/null
.devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/l1b-f16.gguf $M/l1b-Q4_K_M.gguf Q4_K_M >/dev/null 2>&1 || echo "quantize failed"
rm -f $M/l1b-f16.gguf
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
tg() { "$@" 2>&1 | grep -E '^\| (tg|pp)' | head -3; }
echo "== wgrt decode tg128 pipelined"
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M; do for d in 128 2048; do
  echo "-- $f d$d"; tg T 40 $N bench -m $M/$f.gguf -p $d -n 128 -r 2 --tg-mode pipelined
done; done
echo "== llama-bench fa1 tg128 @ d128,d2048"
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M; do
  echo "-- $f"; T 60 /tmp/llama-bench -m $M/$f.gguf -ngl 99 -r 2 -p 0 -n 128 -d 128,2048 -fa 1 2>&1 | grep -E '^\| .*tg'
done
echo "== wgrt prefill"
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M; do for p in 512 2048; do
  echo "-- $f pp$p"; T 40 $N bench -m $M/$f.gguf -p $p -n 4 -r 2 2>&1 | grep -E '^\| pp'
done; done
echo "== llama-bench fa1 pp512,2048 matrix cores off"
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M; do
  echo "-- $f"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 T 60 /tmp/llama-bench -m $M/$f.gguf -ngl 99 -r 2 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
done
echo "-- l1b-Q4_0 coopmat on"; T 60 /tmp/llama-bench -m $M/l1b-Q4_0.gguf -ngl 99 -r 2 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
echo "== sweeps (l1b-Q4_0 tg64 pipelined unless named)"
sw() { local label=$1; shift; echo "-- $label: $(env "$@" timeout 40 $N bench -m $M/l1b-Q4_0.gguf $SW 2>&1 | grep -E '^\| (tg|pp)' | tr -s ' ')"; }
SW="-p 128 -n 64 -r 2 --tg-mode pipelined"
sw "d128 sdpa_decode off (previous path)" WGRT_SDPA_DECODE=0
sw "d128 gemv s8 rule" WGRT_GEMV_Q4_ROUTE=s8
sw "d128 gemv s8 4,8,2,1 (int8 x)" WGRT_GEMV_Q4_ROUTE=s8 WGRT_GEMV_Q4_S8=4,8,2,1
sw "d128 gemv s8 8,8,2,1" WGRT_GEMV_Q4_ROUTE=s8 WGRT_GEMV_Q4_S8=8,8,2,1
SW="-p 2048 -n 64 -r 2 --tg-mode pipelined"
sw "d2048 sdpa_decode off (previous path)" WGRT_SDPA_DECODE=0
sw "d2048 split 64,64,512" WGRT_SDPA_SPLIT=64,64,512
sw "d2048 split 512,256,256" WGRT_SDPA_SPLIT=512,256,256
SW="-p 2048 -n 4 -r 2"
sw "pp2048 flash prefill off (wide route)" WGRT_SDPA_PREFILL=0
sw "pp2048 flash prefill rpt 2" WGRT_SDPA_PREFILL=2
sw "pp2048 flash prefill rpt 1" WGRT_SDPA_PREFILL=1
echo "-- l1b-Q4_K_M pp512 int8 MMQ off: $(WGRT_GEMM_MMQ_GGML=0 T 40 $N bench -m $M/l1b-Q4_K_M.gguf -p 512 -n 4 -r 2 2>&1 | grep -E '^\| pp' | tr -s ' ')"
echo "-- l1b-Q4_K_M d128 fused body off: $(WGRT_FUSED_GEMV=0 T 40 $N bench -m $M/l1b-Q4_K_M.gguf -p 128 -n 64 -r 2 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_short.txt','w').write(' '.join(random.choice(w) for _ in range(100)))"
for f in l1b-Q4_0 l1b-Q4_K_M; do for n in 1 129; do
  echo "== profile $f 620-token prompt -n $n"
  T 40 $N generate -m $M/$f.gguf -f /tmp/p_short.txt -n $n --prefill-chunk 2048 -c 4096 --profile 2>&1 >/dev/null | grep -vE '^(model|Once)' | head -22
done; done
echo "== serve"
WGRT=$N; export WGRT_TEST_PORTS=18100-18199 TMPDIR=/tmp
B="--streams 1,8 --max-tokens 128 --requests 2 --warmup-tokens 16"
for f in l1b-Q4_0 l1b-Q4_K_M; do
  echo "-- wgrt serve $f greedy"; T 45 python3 bench/serve_bench.py --wgrt "$WGRT" $B -- -m $M/$f.gguf --ctx 1024 --parallel 8
done
echo "-- wgrt serve l1b-Q4_0 temperature 0.8 GPU sampling"
WGRT_GPU_SAMPLING=1 T 45 python3 bench/serve_bench.py --wgrt "$WGRT" $B --temperature 0.8 -- -m $M/l1b-Q4_0.gguf --ctx 1024 --parallel 8
if [ -f .devlibs/vit/vit_b16_d12.onnx ]; then echo "== vit"; T 60 bash bench/h200/scripts/run21_vit.sh; fi
echo "== done"
