#!/usr/bin/env bash
# One command: set up a fresh Debian 12 machine (as root), build, and run the whole test suite on the
# lavapipe CPU adapter (or WGRT_ADAPTER). Prints CTest's summary; exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
t0=$(date +%s)
phase() { echo "[test] $1 done at $(($(date +%s) - t0)) s"; }  # CI's 90-minute budget, per phase
bash "$root/scripts/setup.sh"
phase setup
bash "$root/scripts/build.sh"
phase build
cd "$root/build"
ctest --output-on-failure -j"${WGRT_TEST_JOBS:-2}" --timeout 1200
phase ctest
# The ONNX backend node tests on the ONNX importer (docs/ONNX.md): every test of a claimed operator must pass.
bash "$root/scripts/onnx_conformance.sh" "$root/build"
phase "onnx conformance"
# The browser build (docs/BROWSER.md): the wasm, then the page in headless Chromium and the wasm under Node,
# against the native build above. WGRT_SKIP_WEB=1 skips it (local iteration only; CI runs it).
if [ "${WGRT_SKIP_WEB:-0}" != 1 ]; then
  bash "$root/scripts/test_web.sh"
  phase web
fi
# Reliability guards (docs/RELIABILITY.md): the suite again under ASan + UBSan, then every libFuzzer target for a
# bounded time from its committed corpus. WGRT_SKIP_GUARDS=1 skips both (local iteration only; CI runs them).
if [ "${WGRT_SKIP_GUARDS:-0}" != 1 ]; then
  bash "$root/scripts/test_sanitize.sh"
  phase sanitizers
  bash "$root/scripts/fuzz_smoke.sh"
  phase fuzz
fi
