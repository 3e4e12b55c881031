#!/usr/bin/env bash
# The ONNX backend node tests (Debian libonnx-testdata: 932 tests, each a model.onnx with reference inputs and
# outputs) on wgrt's ONNX importer, judged as ONNX's own runner does (rtol 1e-3, atol 1e-7; integers exact).
# Counts every test whose operators wgrt claims; prints each skip (by rule: the Unsupported reason) and
# failure, then "N passed, M failed, K skipped (...)". Exits non-zero on any failure.
#   scripts/onnx_conformance.sh [BUILD_DIR] [--filter SUBSTRING] [--verbose]
# Needs a build (scripts/build.sh) and scripts/setup.sh's libonnx-testdata. docs/ONNX.md records the counts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
data=${WGRT_ONNX_TESTDATA:-/usr/share/libonnx-testdata/data/node}
[ -d "$data" ] || { echo "[onnx_conformance] $data missing: run scripts/setup.sh (libonnx-testdata)" >&2; exit 1; }
bin="$build/tests/wgrt_onnx_conformance"
[ -x "$bin" ] || { echo "[onnx_conformance] $bin missing: run scripts/build.sh" >&2; exit 1; }
exec "$bin" "$data" "$@"
