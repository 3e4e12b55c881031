#!/usr/bin/env bash
# Configures and builds wgrt (CLI, tests, benchmarks) into build/. Run scripts/setup.sh first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f third_party/dawn/libwebgpu_wrapper.so ] || { echo "[build] Dawn missing: run scripts/setup.sh" >&2; exit 1; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${WGRT_BUILD_TYPE:-RelWithDebInfo}" >/dev/null
ninja -C build -j"$(nproc)"
echo "[build] built $root/build/wgrt"
