#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer (gcc, -O1 -g) in build-asan/, on
# lavapipe only (VK_ICD_FILENAMES: the Vulkan loader's probing of other Mesa drivers leaks 128 bytes, not
# ours). Includes the canary tests (tests/sanitize/canary.cpp) that fail if sanitizing silently stops.
# Suppressions: tests/sanitize/{lsan,ubsan}.supp, one comment per entry. Run scripts/setup.sh first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bdir="$root/build-asan"
t0=$(date +%s)
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$root" -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DWGRT_SANITIZE=ON -DWGRT_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
ninja -C "$bdir" -j"$(nproc)"
t1=$(date +%s)
echo "[sanitize] build: $((t1 - t0)) s"
export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.json
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=0
export LSAN_OPTIONS=suppressions=$root/tests/sanitize/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$root/tests/sanitize/ubsan.supp
cd "$bdir"
ctest --output-on-failure -j"${WGRT_TEST_JOBS:-2}" --timeout 1200 "$@"
echo "[sanitize] tests: $(($(date +%s) - t1)) s"
