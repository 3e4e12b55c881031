#!/usr/bin/env bash
# `wgrt template` end to end on the conformance goldens (made by chat_templates_setup.sh): every case of a few
# templates must print the jinja2 bytes, exactly; a raise_exception case must exit 1 with the template's
# message; bad input must give one "wgrt: error:" line. Usage: chat_template_cli_check.sh WGRT CASES_DIR
set -euo pipefail
wgrt=$1 dir=$2
export WGRT_TEMPLATE_NOW=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['now'])" "$dir/manifest.json")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$dir" > "$tmp/cases" <<'PY'
import json, sys
d = sys.argv[1]
m = json.load(open(d + "/manifest.json"))
pick = ("meta-llama-Llama-3.1-8B-Instruct.jinja", "Qwen-Qwen3-0.6B.jinja", "google-gemma-2-2b-it.jinja",
        "microsoft-Phi-3.5-mini-instruct.jinja", "HuggingFaceTB-SmolLM3-3B.jinja")
for c in m["cases"]:
    if c["template"] in pick and c["expect"] in ("ok", "raise"):
        print("\x1f".join([c["template"], c["messages"], c["tools"] or "", "1" if c["add_generation_prompt"] else "0",
                         json.dumps(c["vars"]), c["expect"], c.get("output") or c["message"]]))
PY
n=0
while IFS=$'\x1f' read -r tmpl msgs tools gp vars expect want; do
  echo "$vars" > "$tmp/vars.json"
  args=(template --template "$dir/models/templates/$tmpl" --messages "$dir/$msgs" --bos-token '<s>' --eos-token '</s>'
        --vars "$tmp/vars.json")
  [ -n "$tools" ] && args+=(--tools "$dir/$tools")
  [ "$gp" = 1 ] && args+=(--add-generation-prompt)
  if [ "$expect" = ok ]; then
    "$wgrt" "${args[@]}" > "$tmp/out"
    cmp -s "$tmp/out" "$dir/$want" || { echo "FAIL: $tmpl $msgs gp=$gp differs from $want"; exit 1; }
  else
    if "$wgrt" "${args[@]}" > /dev/null 2> "$tmp/err"; then echo "FAIL: $tmpl $msgs should fail"; exit 1; fi
    [ "$(cat "$tmp/err")" = "wgrt: error: $want" ] || { echo "FAIL: $tmpl: stderr '$(cat "$tmp/err")'"; exit 1; }
  fi
  n=$((n + 1))
done < "$tmp/cases"
[ "$n" -ge 40 ] || { echo "FAIL: only $n CLI cases"; exit 1; }
# -m MODEL: the template and the BOS/EOS texts come from the GGUF (written here by an independent few-line
# GGUF v3 writer); the expected text is hf_style.jinja's committed jinja2 golden.
src=$(cd "$(dirname "$0")/../.." && pwd)
python3 - "$src" "$tmp" <<'PY'
import json, struct, sys
src, tmp = sys.argv[1], sys.argv[2]
g = json.load(open(src + "/tests/golden/chat_template_snippets.json"))
json.dump(g["messages"], open(tmp + "/m.json", "w"))
json.dump(g["tools"], open(tmp + "/t.json", "w"))
open(tmp + "/want.txt", "wb").write(g["snippets"]["hf_style.jinja"]["output"].encode())
def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b
kv = [("general.architecture", struct.pack("<I", 8) + s("llama")),
      ("tokenizer.ggml.tokens", struct.pack("<II", 9, 8) + struct.pack("<Q", 4) + b"".join(s(t) for t in ["<unk>", "<s>", "</s>", "x"])),
      ("tokenizer.ggml.bos_token_id", struct.pack("<II", 4, 1)),
      ("tokenizer.ggml.eos_token_id", struct.pack("<II", 4, 2)),
      ("tokenizer.chat_template", struct.pack("<I", 8) + s(open(src + "/tests/corpus/chat_template/hf_style.jinja").read()))]
with open(tmp + "/chat.gguf", "wb") as f:
    f.write(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kv)))
    for k, v in kv:
        f.write(s(k) + v)
PY
WGRT_TEMPLATE_NOW=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['now'])" "$src/tests/golden/chat_template_snippets.json") \
  "$wgrt" template -m "$tmp/chat.gguf" --messages "$tmp/m.json" --tools "$tmp/t.json" --add-generation-prompt > "$tmp/got.txt"
cmp -s "$tmp/got.txt" "$tmp/want.txt" || { echo "FAIL: wgrt template -m differs from hf_style.jinja's golden"; diff "$tmp/got.txt" "$tmp/want.txt" | head; exit 1; }

# Bad input: one clear line, exit 1.
echo '[{"role": "user", "content": "hi"' > "$tmp/bad.json"
echo '{% for %}' > "$tmp/bad.jinja"
echo '[{"role": "user", "content": "hi"}]' > "$tmp/ok.json"
check_err() {  # expected stderr prefix, then the command
  local want=$1; shift
  if "$@" > /dev/null 2> "$tmp/err"; then echo "FAIL: '$*' should fail"; exit 1; fi
  [ "$(wc -l < "$tmp/err")" = 1 ] && grep -q "^wgrt: error: $want" "$tmp/err" \
    || { echo "FAIL: '$*' stderr: $(cat "$tmp/err")"; exit 1; }
}
check_err "messages file .* is not valid JSON" "$wgrt" template --template "$tmp/bad.jinja" --messages "$tmp/bad.json"
check_err "chat template line 1: expected a name" "$wgrt" template --template "$tmp/bad.jinja" --messages "$tmp/ok.json"
check_err "wgrt template needs -m MODEL or --template FILE" "$wgrt" template --messages "$tmp/ok.json"
echo "chat_template_cli: $n cases byte-identical to jinja2, bad input rejected"
