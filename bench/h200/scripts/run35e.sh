#!/usr/bin/env bash
# H200 run 35e (fifteenth session; not run: no device machine could be started when it was ready), ~3 min: the weight load from the file's mapping (3013e25) on a GPU. Start-up of
# `generate -p Hello -n 1 --temp 0` (wall time from process start, and the load line) for the 1B Q4_K_M and Q4_0
# files, old binary (.devlibs/new/wgrt_old, 22a27a8) and new alternating, three times each (the wgrt disk cache warm
# after the first); then the new binary's pp512 / pp2048 / tg128 at depth 128 as a check against run 35c.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
start() { local b=$1 f=$2 out
  out=$( { TIMEFORMAT=%R; time timeout 60 $b generate -m $M/$f.gguf -p Hello -n 1 --temp 0 >/dev/null 2>/tmp/start.err; } 2>&1 )
  echo "-- START $(basename $b) $f wall $out s, $(grep -oE '^load: [0-9.]+ s' /tmp/start.err)"; }
for i in 1 2 3; do for f in l1b-Q4_K_M l1b-Q4_0; do start .devlibs/new/wgrt_old $f; start $N $f; done; done
for f in l1b-Q4_0 l1b-Q4_K_M; do
  echo "-- CHECK $f $(timeout 60 $N bench -m $M/$f.gguf -p 512 -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ') $(timeout 60 $N bench -m $M/$f.gguf -p 2048 -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ') $(timeout 60 $N bench -m $M/$f.gguf -p 128 -n 128 -r 5 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done
echo "== done"
