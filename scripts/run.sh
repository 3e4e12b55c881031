#!/usr/bin/env bash
# One command: set up a fresh Debian 12 machine (as root), build, and run the main job: text generation on
# the GPU with the default model (../shared/models/stories260K). Extra arguments go to `wgrt generate`
# (e.g. bash scripts/run.sh -p "Once upon a time" -n 100 --temp 0.8 --seed 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
model_dir="${WGRT_MODEL_DIR:-$root/../shared/models/stories260K}"
[ -f "$model_dir/stories260K.bin" ] || { echo "[run] default model not found in $model_dir (set WGRT_MODEL_DIR)" >&2; exit 1; }
if [ $# -eq 0 ]; then set -- -p "Once upon a time" -n 200; fi
exec "$root/build/wgrt" generate -m "$model_dir/stories260K.bin" -t "$model_dir/tok512.bin" "$@"
