#!/usr/bin/env bash
# H200 run 22 final (merged main, end of the fifth session): decode and prefill against llama.cpp's Vulkan
# llama-bench on the same files in the same run, the peer with 5 repetitions reported per sample (its Llama rows
# varied +-45% between 2 repetitions in run 22's first batch), Qwen2.5-0.5B Q4_K_M added (issue 13 names it);
# then serve 1/8 streams and the ViT at batch 1 (this round's knob sweeps ran mid-session: run22_mid*.log).
# Most important rows first. ~6 min.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M /tmp/lc
N=.devlibs/new/wgrt
T() { timeout "$@"; }
$N info 2>&1 | sed -n '/Tuning policy/,$p' | head -40
tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do pre=${p%%:*}; s=${p##*:}
  $N synth --preset $pre --type q4_0 --init-std 0.2 -o $M/$s-Q4_0.gguf >/dev/null
  $N synth --preset $pre --type f16 --init-std 0.2 -o $M/$s-f16.gguf >/dev/null
  .devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/$s-f16.gguf $M/$s-Q4_K_M.gguf Q4_K_M >/dev/null 2>&1 || echo "quantize $s failed"
  rm -f $M/$s-f16.gguf
done
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
# llama-bench JSON: one object per test with samples_ts; print mean, median, min, max of the repetitions.
lb() { T 120 /tmp/llama-bench "$@" -o json 2>/dev/null | python3 -c '
import json,sys,statistics as st
for t in json.load(sys.stdin):
  s=t.get("samples_ts") or [t["avg_ts"]]
  kind="pp%d"%t["n_prompt"] if t["n_gen"]==0 else "tg%d@d%d"%(t["n_gen"],t.get("n_depth",0))
  print("| %s | mean %.1f | median %.1f | min %.1f | max %.1f | n %d |"%(kind,st.mean(s),st.median(s),min(s),max(s),len(s)))'; }
FILES="l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M q05-Q4_K_M"
echo "== wgrt decode tg128 pipelined (-r 3)"
for f in $FILES; do for d in 128 2048; do
  echo "-- $f d$d $(T 60 $N bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done
echo "== Q4_K_M int8 x in the block GEMV on (default) / off, -r 4"
for v in 2 0; do echo "-- l1b-Q4_K_M WGRT_GEMV_KQ_INT8=$v $(WGRT_GEMV_KQ_INT8=$v T 60 $N bench -m $M/l1b-Q4_K_M.gguf -p 128 -n 128 -r 4 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; done
echo "== llama-bench fa1 tg128 @ d128,d2048 (-r 5)"
for f in $FILES; do echo "-- $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1; done
echo "== wgrt prefill (-r 3)"
for f in $FILES; do for p in 512 2048; do
  echo "-- $f $(T 60 $N bench -m $M/$f.gguf -p $p -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done; done
echo "== llama-bench fa1 pp512,2048 matrix cores off (-r 3)"
for f in $FILES; do echo "-- $f"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 lb -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1; done
echo "-- l1b-Q4_0 coopmat on"; lb -m $M/l1b-Q4_0.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1
echo "== serve 1/8 streams"
export WGRT_TEST_PORTS=18100-18199 TMPDIR=/tmp
for f in l1b-Q4_0 l1b-Q4_K_M; do
  echo "-- $f"; T 45 python3 bench/serve_bench.py --wgrt $N --streams 1,8 --max-tokens 128 --requests 2 --warmup-tokens 16 \
    -- -m $M/$f.gguf --ctx 1024 --parallel 8 | grep -E '^\|'
done
echo "== vit batch 1"
V=/tmp/vit; mkdir -p $V && cp .devlibs/vit/vit_b16_d12.onnx $V/ &&
  python3 tests/golden/make_vit_onnx.py $V/vit_b16_d12.onnx --depth 12 --data-only >/dev/null &&
  T 30 .devlibs/new/wgrt_bench_ocr --only vit --vit $V/vit_b16_d12.onnx --runs 20 --warmup 3 2>&1 | grep -E '^wgrt vit'
echo "== done"
