#!/usr/bin/env bash
# H200 run 22, decfuse branch (< 60 s): the stacked q/k/v decode body (one GEMV over [Wq; Wk; Wv], then
# wgrt.rope_qkv_cache: RoPE + KV-cache write in one dispatch; 3 dispatches fewer per layer) on / off
# (WGRT_FUSED_QKV), decode tg128 pipelined at depth 128 and 2048 on synth Llama-3.2-1B and Qwen2.5-0.5B Q4_0;
# then the decode split threshold (WGRT_SDPA_SPLIT MIN_CONTEXT,MIN_CHUNK,TARGET_WG) at d2048 with the fusion on.
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M
N=.devlibs/new/wgrt
[ -f $M/l1b-Q4_0.gguf ] || $N synth --preset llama-3.2-1b --type q4_0 --init-std 0.2 -o $M/l1b-Q4_0.gguf >/dev/null
[ -f $M/q05-Q4_0.gguf ] || $N synth --preset qwen2.5-0.5b --type q4_0 --init-std 0.2 -o $M/q05-Q4_0.gguf >/dev/null
tg() { local label=$1; shift; echo "-- $label: $(env "$@" 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for f in l1b-Q4_0 q05-Q4_0; do for d in 128 2048; do for q in 1 0; do
  tg "$f d$d fused_qkv=$q" WGRT_FUSED_QKV=$q timeout 25 $N bench -m $M/$f.gguf -p $d -n 128 -r 1 --tg-mode pipelined
done; done; done
for s in 256,128,512 1024,256,256 4096,128,512; do
  tg "l1b-Q4_0 d2048 split $s" WGRT_SDPA_SPLIT=$s timeout 25 $N bench -m $M/l1b-Q4_0.gguf -p 2048 -n 64 -r 1 --tg-mode pipelined
done
echo "-- l1b-Q4_0 profile d~130 decode, fused_qkv on"
python3 -c "open('/tmp/p_dec.txt','w').write(' '.join(['the cat sat on a mat']*20))"
timeout 25 $N generate -m $M/l1b-Q4_0.gguf -f /tmp/p_dec.txt -n 33 --profile 2>&1 >/dev/null | grep -vE '^(model|Once)' | head -16
