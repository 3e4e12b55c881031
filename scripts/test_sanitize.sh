#!/usr/bin/env bash
# The test suite built with AddressSanitizer + UndefinedBehaviorSanitizer (gcc, -O1 -g1: line tables, enough for the
# reports' stack traces) in build-asan/, on lavapipe only (VK_ICD_FILENAMES: the Vulkan loader's probing of other
# Mesa drivers leaks 128 bytes, not ours): the host, runtime, model, OCR, vocabulary and server tests. The op kernel
# value tests (tests/kernels, two thirds of the native suite's serial time) are not built here (WGRT_KERNEL_TESTS OFF):
# they check WGSL, which the sanitizers do not see, and the host code they reach (the ops' builders and resize
# hooks) runs sanitized in the model tests, whose graphs build the LLM, ViT, ONNX and OCR ops. WGRT_SANITIZE_ALL=1
# builds and runs them too. Includes the canary tests (tests/sanitize/canary.cpp) that fail if sanitizing silently
# stops. Suppressions: tests/sanitize/{lsan,ubsan}.supp, one comment per entry. Run scripts/setup.sh first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bdir="$root/build-asan"
t0=$(date +%s)
kernels=OFF
[ "${WGRT_SANITIZE_ALL:-0}" = 1 ] && kernels=ON
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$root" -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DWGRT_SANITIZE=ON -DWGRT_BUILD_BENCH=OFF -DWGRT_KERNEL_TESTS="$kernels" "${launcher[@]}" >/dev/null
ninja -C "$bdir" -j"$(nproc)"
t1=$(date +%s)
echo "[sanitize] build: $((t1 - t0)) s"
export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.json
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=0
export LSAN_OPTIONS=suppressions=$root/tests/sanitize/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$root/tests/sanitize/ubsan.supp
cd "$bdir"
# The llama.cpp oracle tests (a file per weight type and per architecture, made and run by llama.cpp's CPU build in a
# child process: 28% of this run's serial time) keep four files here, one per distinct host path (a K-quant and an
# i-quant file, a fused-QKV and a soft-capped sliding-window architecture); the native run compares them all.
# WGRT_SANITIZE_ALL=1 runs them all.
oracle='^(Families/FamiliesLlamaCpp|LlamaCppFileTypes/QuantLlamaCpp)[.]'
keep='/(phi3|gemma3|Q4_K_S|IQ4_XS)$'
exclude=()
if [ "${WGRT_SANITIZE_ALL:-0}" != 1 ]; then  # names as CTest lists them, less the "# GetParam() = ..." comment
  skip=$(ctest -N | sed -n 's/^ *Test *#[0-9]*: \([^ ]*\).*/\1/p' | grep -E "$oracle" | grep -vE "$keep" | sed 's/[.]/[.]/g' | paste -sd'|' || true)
  [ -n "$skip" ] && exclude=(-E "^($skip)( |\$)")
fi
ctest --output-on-failure -j"${WGRT_TEST_JOBS:-2}" --timeout 1200 "${exclude[@]}" "$@"
echo "[sanitize] tests: $(($(date +%s) - t1)) s"
