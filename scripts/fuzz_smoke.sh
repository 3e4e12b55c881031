#!/usr/bin/env bash
# Builds every libFuzzer target (fuzz/fuzz_<name>.cpp, see fuzz/CMakeLists.txt) into build-fuzz/ with clang and
# runs each for a bounded time from its committed corpus tests/corpus/<name>/ (copied to a scratch folder, so
# the committed corpus is never modified). Two targets run at a time (CI has 2 cores).
# Usage: scripts/fuzz_smoke.sh [seconds per target, default $WGRT_FUZZ_SECONDS or 20] [name...]
# Exits non-zero if a target crashes, leaks, times out on one input or trips a sanitizer: its log and the
# crashing input (build-fuzz/findings/) are printed. Minimize a finding into tests/corpus/<name>/ and add a
# regression test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-${WGRT_FUZZ_SECONDS:-20}}
shift || true
bdir="$root/build-fuzz"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$root" -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DWGRT_FUZZ=ON -DWGRT_BUILD_TESTS=OFF -DWGRT_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$root"/fuzz/fuzz_*.cpp; do n=$(basename "$f" .cpp); names+=("${n#fuzz_}"); done
fi
targets=()
for n in "${names[@]}"; do targets+=("fuzz_$n"); done
ninja -C "$bdir" "${targets[@]}"
mkdir -p "$bdir/findings" "$bdir/logs"
run_one() {  # name seconds root bdir
  local n=$1 secs=$2 root=$3 bdir=$4
  local scratch; scratch=$(mktemp -d)
  [ -d "$root/tests/corpus/$n" ] && cp -r "$root/tests/corpus/$n/." "$scratch/"
  local log="$bdir/logs/$n.log"
  if "$bdir/fuzz/fuzz_$n" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$bdir/findings/$n-" "$scratch" >"$log" 2>&1; then
    echo "[fuzz] $n: ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') runs in ${secs} s)"
    rm -rf "$scratch"
  else
    echo "[fuzz] $n: FAILED (log: $log)"; tail -40 "$log"; rm -rf "$scratch"; return 1
  fi
}
export -f run_one
printf '%s\n' "${names[@]}" | xargs -P 2 -I{} bash -c 'run_one "$@"' _ {} "$secs" "$root" "$bdir"
echo "[fuzz] all ${#names[@]} targets passed (${secs} s each)"
