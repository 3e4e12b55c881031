#!/usr/bin/env bash
# Tests of the browser build (docs/BROWSER.md), run by scripts/test.sh after the native suite. Builds the wasm
# (scripts/build_web.sh; WGRT_WEB_SKIP_BUILD=1 reuses build-web/), then checks, against the native wgrt in build/:
#   - headless Chromium (its WebGPU: SwiftShader) loads the demo page from a static server on 127.0.0.1 and
#     generates greedily with stories260K: the page's text (prompt + streamed output) equals `wgrt generate`'s;
#   - the same wasm under Node with npm webgpu (dawn.node, lavapipe) gives the same text;
#   - a small qwen2 Q4_0 file with a real byte-level BPE vocabulary (llama.cpp's qwen2 vocab): the generated
#     token ids equal native greedy ids, in Chromium and under Node;
#   - errors reach the page as one "wgrt: error: ..." line: a bad model URL (404), a truncated file, a model
#     over the memory cap (a sparse 2 GiB file, refused before download);
#   - the wasm tokenizer (PCRE2 compiled for wasm) passes llama.cpp's tokenizer vectors, as natively.
# Ends with "N passed, M failed"; exits non-zero on any failure. Ports 18200-18299 (WGRT_WEB_PORTS) for the server.
# Chromium runs with a timeout, in its own process group, and is killed by that group's id.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
site=${WGRT_WEB_BUILD:-$root/build-web}/site
wgrt=$root/build/wgrt
stories=$root/../shared/models/stories260K/stories260K.gguf
ports=${WGRT_WEB_PORTS:-18200-18299}
prompt="Once upon a time"
n=48
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "[test_web] PASS $*"; }
bad() { failed=$((failed + 1)); printf '[test_web] FAIL %b\n' "$*"; }
finish() { echo "[test_web] $passed passed, $failed failed"; [ "$failed" = 0 ]; exit $?; }

if [ "${WGRT_WEB_SKIP_BUILD:-0}" != 1 ]; then
  t0=$(date +%s)
  if bash "$root/scripts/build_web.sh"; then ok "wasm build ($(( $(date +%s) - t0 )) s)"; else bad "wasm build"; finish; fi
fi
for f in "$site/wgrt_wasm.wasm" "$wgrt" "$stories" "$root/web/node_modules/webgpu/index.js"; do
  [ -e "$f" ] || { bad "missing $f (run scripts/setup.sh and scripts/build.sh)"; finish; }
done
chrome=$(command -v chromium || true)
[ -n "$chrome" ] || { bad "chromium missing (scripts/setup.sh installs it)"; finish; }

work=$(mktemp -d "${TMPDIR:-/tmp}/wgrt_web.XXXXXX")
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/models" "$work/results"

# Models: stories260K, the BPE model, a truncated copy, and a sparse file over the memory cap.
ln -s "$stories" "$work/models/stories260K.gguf"
vocab_dir=$root/build/vocab
bash "$root/scripts/vocab_vectors.sh" "$vocab_dir" >/dev/null || bad "llama.cpp vocab files (scripts/vocab_vectors.sh)"
have_bpe=0
if [ -x "$root/build/tests/wgrt_web_bpe_model" ] && [ -f "$vocab_dir/ggml-vocab-qwen2.gguf" ]; then
  "$root/build/tests/wgrt_web_bpe_model" "$vocab_dir/ggml-vocab-qwen2.gguf" "$work/models/bpe.gguf" >/dev/null && have_bpe=1
fi
[ $have_bpe = 1 ] || bad "could not make the BPE test model (build/wgrt_web_bpe_model, build/vocab)"
head -c $(( $(stat -Lc %s "$stories") / 2 )) "$stories" > "$work/models/truncated.gguf"
truncate -s 2G "$work/models/huge.gguf"

# Native references (lavapipe).
native() {  # MODEL NAME [N]: writes NAME.txt (stdout) and NAME.ids (generated ids)
  "$wgrt" generate -m "$1" -p "$prompt" -n "${3:-$n}" --temp 0 --ids > "$work/$2.txt" 2> "$work/$2.err" ||
    { bad "native wgrt generate ($2): $(tail -1 "$work/$2.err")"; return 1; }
  sed -n 's/^generated ids: //p' "$work/$2.err" > "$work/$2.ids"
}
native "$stories" native_stories
n_bpe=24  # its 151,936-token vocabulary makes each token slow on CPU adapters
[ $have_bpe = 1 ] && native "$work/models/bpe.gguf" native_bpe $n_bpe

# The static server.
node "$root/web/serve.mjs" "$site" --models "$work/models" --ports "$ports" --results "$work/results" > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do grep -q '^port ' "$work/server.log" && break; sleep 0.1; done
port=$(sed -n 's/^port //p' "$work/server.log")
[ -n "$port" ] || { bad "static server did not start: $(cat "$work/server.log")"; finish; }

# page NAME QUERY: runs the page in headless Chromium until it posts NAME.json (at most 180 s).
page() {
  local name=$1 query=$2 pid
  setsid timeout 200 "$chrome" --headless=new --no-sandbox --enable-unsafe-webgpu --no-first-run \
    --disable-extensions --user-data-dir="$work/profile-$name" \
    "http://127.0.0.1:$port/?auto=1&name=$name&$query" > "$work/chrome-$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 1800); do [ -s "$work/results/$name.json" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -- -$pid 2>/dev/null; wait $pid 2>/dev/null
  [ -s "$work/results/$name.json" ] || echo '{"error": "no result from the page (see the Chromium log)"}' > "$work/results/$name.json"
}
# field FILE EXPR: a value of a result JSON (python3 expression over r).
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }
enc() { python3 -c "import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1]))" "$1"; }

# same_text NAME RESULT NATIVE: the streamed text equals the native stdout (less its final newline).
same_text() {
  local err; err=$(field "$2" "r.get('error','')")
  if [ -n "$err" ]; then bad "$1: $err"; return; fi
  python3 -c "import json,sys; sys.stdout.write(json.load(open(sys.argv[1]))['streamed'])" "$2" > "$work/$1.got" 2>/dev/null
  head -c -1 "$3" > "$work/$1.want"
  if cmp -s "$work/$1.got" "$work/$1.want" && [ "$(field "$2" "' '.join(map(str, r['tokens']))")" = "$(cat "${3%.txt}.ids")" ]; then
    ok "$1: $(field "$2" "r['generatedTokens']") tokens equal native wgrt generate ($(field "$2" "'%.1f tok/s' % r['decodeTokPerS']"))"
  else
    bad "$1: text differs from native\n  want: $(cat "$work/$1.want")\n  got:  $(cat "$work/$1.got")"
  fi
}
same_ids() {
  local err; err=$(field "$2" "r.get('error','')")
  if [ -n "$err" ]; then bad "$1: $err"; return; fi
  local got; got=$(field "$2" "' '.join(map(str, r['tokens']))")
  if [ -n "$got" ] && [ "$got" = "$(cat "$3")" ]; then ok "$1: $(echo "$got" | wc -w) greedy ids equal native"
  else bad "$1: ids differ from native\n  want: $(cat "$3")\n  got:  $got"; fi
}
expect_error() {  # NAME RESULT REGEX
  local err; err=$(field "$2" "r.get('error','')")
  if [[ "$err" =~ $3 ]] && [[ "$err" == "wgrt: error: "* ]]; then ok "$1: the page shows \"$err\""
  else bad "$1: expected an error matching /$3/, got: ${err:-(none)}"; fi
}

q="prompt=$(enc "$prompt")&n=$n"
page stories "model=models/stories260K.gguf&$q"
same_text "chromium stories260K" "$work/results/stories.json" "$work/native_stories.txt"
adapter=$(field "$work/results/stories.json" "r['adapter']['name'] + ' | ' + ' '.join(r['adapter']['features'])")
echo "[test_web] Chromium adapter: $adapter"

node "$root/web/tests/run_node.mjs" "$site" "$stories" --prompt "$prompt" --n $n > "$work/node_stories.json" 2> "$work/node_stories.err"
same_text "node (dawn.node) stories260K" "$work/node_stories.json" "$work/native_stories.txt"

if [ $have_bpe = 1 ]; then
  page bpe "model=models/bpe.gguf&prompt=$(enc "$prompt")&n=$n_bpe"
  same_ids "chromium qwen2 BPE Q4_0" "$work/results/bpe.json" "$work/native_bpe.ids"
  node "$root/web/tests/run_node.mjs" "$site" "$work/models/bpe.gguf" --prompt "$prompt" --n $n_bpe > "$work/node_bpe.json" 2> "$work/node_bpe.err"
  same_ids "node (dawn.node) qwen2 BPE Q4_0" "$work/node_bpe.json" "$work/native_bpe.ids"
fi

page missing "model=models/no-such-model.gguf&$q"
expect_error "bad model URL" "$work/results/missing.json" "HTTP 404"
page truncated "model=models/truncated.gguf&$q"
expect_error "truncated model file" "$work/results/truncated.json" "(truncated|ends|past the end|too short|GGUF)"
page huge "model=models/huge.gguf&$q"
expect_error "model over the memory cap" "$work/results/huge.json" "holds at most"

if node "$root/web/tests/vocab_node.mjs" "$site" "$vocab_dir" > "$work/vocab.log" 2>&1; then
  ok "wasm tokenizer: $(tail -1 "$work/vocab.log")"
else
  bad "wasm tokenizer: $(grep -v ' pass$' "$work/vocab.log" | head -20; tail -1 "$work/vocab.log")"
fi
finish
