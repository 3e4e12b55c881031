# Sourced by the H200 batch scripts from run 22 on (`source bench/h200/scripts/lib.sh` at the repo root on the
# H200 machine): the preamble every batch repeated. It loads the carried libraries (.devlibs/env.sh) and sets
#   N   the release wgrt (WGRT overrides; default .devlibs/new/wgrt, built by the lead from the branch)
#   M   the folder of the model files (default /tmp/m; files made by an earlier script of the batch are reused)
#   LC  where llama.cpp's CPU libraries are unpacked for its quantizer (default /tmp/lc)
# and defines:
#   synth NAME PRESET TYPE [SYNTH ARGS...]   $M/NAME.gguf from `wgrt synth` (e.g. --init-std 0.2), made once
#   quantize NAME PRESET TYPE [SYNTH ARGS...] $M/NAME.gguf in llama.cpp's TYPE (Q4_K_M, Q6_K, ...) by its quantizer
#                                             (.devlibs/wgrt_llamacpp_helper over .devlibs/llamacpp-cpu.tar.xz) from
#                                             an F16 synth of PRESET, made once; prints a line when it fails
#   llama_bench                               $LLAMA_BENCH (default /tmp/llama-bench): llama.cpp's Vulkan llama-bench
#                                             unpacked from .devlibs/peers/llama-bench-vulkan.xz, once
#   lb LLAMA-BENCH ARGS...                   llama-bench -o json (120 s limit) as one row per test: mean, median, min, max
#                                             of its repetitions (its first repetition runs at about half speed)
#   rows CMD...                               CMD's markdown rows of pp/tg results (`wgrt bench`, llama-bench)
#   sweep LABEL FILE 'BENCH ARGS' [VAR=VALUE...]  one `wgrt bench` of $M/FILE.gguf under the env assignments, as
#                                             one line "-- LABEL: | ... |" (40 s limit)
#   peer_files                                the comparison batches' files (Llama-3.2-1B and Qwen2.5-0.5B shapes,
#                                             std-0.2 weights: wgrt's Q4_0 and llama.cpp-quantized Q4_K_M, as
#                                             FILES="l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M q05-Q4_K_M"), after printing the
#                                             tuning policy; unpacks llama-bench
#   serve_rows FILE...                        `wgrt serve` ($N) at 1/2/4/8 streams per $M/FILE.gguf (serve_bench.py, 128
#                                             tokens x 2 requests per stream, warm-up per level), rows "-- SERVE FILE |"
# Example (a new batch script, run from the repo root):
#   set -u; source bench/h200/scripts/lib.sh
#   synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2; quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
#   sweep "d128 default" l1b-Q4_0 "-p 128 -n 64 -r 2 --tg-mode pipelined"
#   sweep "d128 fused body off" l1b-Q4_0 "-p 128 -n 64 -r 2 --tg-mode pipelined" WGRT_FUSED_GEMV=0
#   llama_bench && rows timeout 60 "$LLAMA_BENCH" -m $M/l1b-Q4_0.gguf -ngl 99 -r 2 -p 0 -n 128 -d 128 -fa 1
# Every call is bounded by timeout; nothing here starts a server. Errors: a missing input prints one line and the
# script goes on (the batch runs unattended and must report every row it can).
source .devlibs/env.sh
N=${WGRT:-.devlibs/new/wgrt}
M=${M:-/tmp/m}
LC=${LC:-/tmp/lc}
LLAMA_BENCH=${LLAMA_BENCH:-/tmp/llama-bench}
mkdir -p "$M"

synth() {
  local name=$1 preset=$2 type=$3
  shift 3
  [ -s "$M/$name.gguf" ] || timeout 120 "$N" synth --preset "$preset" --type "$type" "$@" -o "$M/$name.gguf" >/dev/null ||
    echo "synth $name failed"
}

quantize() {
  local name=$1 preset=$2 type=$3
  shift 3
  [ -s "$M/$name.gguf" ] && return 0
  if [ ! -x .devlibs/wgrt_llamacpp_helper ] || [ ! -f .devlibs/llamacpp-cpu.tar.xz ]; then
    echo "quantize $name: no .devlibs/wgrt_llamacpp_helper or .devlibs/llamacpp-cpu.tar.xz"
    return 1
  fi
  [ -d "$LC/linux-x64" ] || { mkdir -p "$LC" && tar -xJf .devlibs/llamacpp-cpu.tar.xz -C "$LC"; }
  local f16="$M/$name.f16.gguf"
  if ! timeout 120 "$N" synth --preset "$preset" --type f16 "$@" -o "$f16" >/dev/null ||
    ! timeout 300 .devlibs/wgrt_llamacpp_helper quantize "$LC/linux-x64" "$f16" "$M/$name.gguf" "$type" >/dev/null 2>&1; then
    echo "quantize $name ($type) failed"
    rm -f "$M/$name.gguf"
  fi
  rm -f "$f16"
}

llama_bench() {
  [ -x "$LLAMA_BENCH" ] || { xz -dc .devlibs/peers/llama-bench-vulkan.xz >"$LLAMA_BENCH" && chmod +x "$LLAMA_BENCH"; } ||
    echo "no llama-bench: .devlibs/peers/llama-bench-vulkan.xz missing"
}

# llama-bench JSON: one object per test with samples_ts; print mean, median, min, max of the repetitions.
lb() { timeout 120 "$LLAMA_BENCH" "$@" -o json 2>/dev/null | python3 -c '
import json,sys,statistics as st
for t in json.load(sys.stdin):
  s=t.get("samples_ts") or [t["avg_ts"]]
  kind="pp%d"%t["n_prompt"] if t["n_gen"]==0 else "tg%d@d%d"%(t["n_gen"],t.get("n_depth",0))
  print("| %s | mean %.1f | median %.1f | min %.1f | max %.1f | n %d |"%(kind,st.mean(s),st.median(s),min(s),max(s),len(s)))'; }

rows() { "$@" 2>&1 | grep -E '^\| .*(tg|pp)[0-9]'; }

sweep() {
  local label=$1 file=$2 args=$3
  shift 3
  # shellcheck disable=SC2086  # args is a word list on purpose
  echo "-- $label: $(env "$@" timeout 40 "$N" bench -m "$M/$file.gguf" $args 2>&1 | grep -E '^\| (tg|pp)' | tr -s ' ' | paste -sd ' ')"
}

peer_files() {
  "$N" info 2>&1 | sed -n '/Tuning policy/,$p' | head -40
  local p pre s
  for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do pre=${p%%:*}; s=${p##*:}
    synth $s-Q4_0 $pre q4_0 --init-std 0.2
    quantize $s-Q4_K_M $pre Q4_K_M --init-std 0.2
  done
  llama_bench
  FILES="l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M q05-Q4_K_M"
}

serve_rows() {
  local f
  export WGRT_TEST_PORTS=${WGRT_TEST_PORTS:-18100-18199} TMPDIR=${TMPDIR:-/tmp}
  for f in "$@"; do
    timeout 60 python3 bench/serve_bench.py --wgrt "$N" --streams 1,2,4,8 --max-tokens 128 --requests 2 --warmup-tokens 16 \
      -- -m "$M/$f.gguf" --ctx 1024 --parallel 8 2>&1 | grep -E '^\|' | sed "s/^/-- SERVE $f /"
  done
}
