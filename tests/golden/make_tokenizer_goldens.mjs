// Makes tests/golden/tokenizer_llamacpp.json: llama.cpp's own token ids (node-llama-cpp 3.21.1, llama.cpp
// 80fb11ac, CPU build) for our test strings under each of llama.cpp's vocab-only GGUF files, with
// parse_special off and on (add_special off: common_tokenize(vocab, text, false, parse_special)). The strings
// aim at rules the .inp/.out vectors leave untested: combining marks, the deepseek character classes, Unicode
// white space, special-token texts and their strip rules, Hangul and accents under WordPiece.
// Run: (cd bench && npm ci) && node tests/golden/make_tokenizer_goldens.mjs build/vocab
// (build/vocab: scripts/vocab_vectors.sh build/vocab). JavaScript strings cannot hold invalid UTF-8, so those
// inputs are covered by the unit tests instead.
// A bigger differential set, not committed: ... make_tokenizer_goldens.mjs build/vocab --random 400 /tmp/r.json
// (seeded random strings over a pool of scripts, marks, white space, digits and special texts), then
// WGRT_TOKENIZER_GOLDENS=/tmp/r.json build/tests/wgrt_vocab_tests --gtest_filter='*Goldens*'.
import fs from "node:fs";
import path from "node:path";
import {createRequire} from "node:module";

const require = createRequire(path.resolve("bench/package.json"));
const {getLlama} = await import(require.resolve("node-llama-cpp"));

const dir = process.argv[2] ?? "build/vocab";
const vocabs = ["llama-spm", "llama-bpe", "qwen2", "qwen35", "gpt-2", "phi-3", "gemma-4", "deepseek-llm",
  "deepseek-coder", "falcon", "mpt", "starcoder", "refact", "command-r", "bert-bge", "aquila", "baichuan", "gpt-neox"];
const strings = [
  "cafe\u0301 na\u0308ive r\u00e9sum\u00e9", "\u0915\u094d\u0937\u093f \u0939\u093f\u0928\u094d\u0926\u0940",
  "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22", "Vi\u1ec7t Nam, Vie\u0302\u0323t", "\ud55c\uad6d\uc5b4 \uac00\ub098\ub2e4",
  "\u65e5\u672c\u8a9e\u3068\u4e2d\u6587\u3002\uff01\uff1f", "\uff21\uff22\uff23\uff11\uff12\uff13", "\u0391\u03b8\u03ae\u03bd\u03b1 \u041c\u043e\u0441\u043a\u0432\u0430",
  "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645", "a\u00a0b\u3000c\u2009d\u202fe", "x\r\ny\r\n\r\nz", "tab\there\t\t ",
  "trailing   ", "  leading", "\n\n\n", " \n \n ", "I'M YOU'LL we'Re it'S", "don\u2019t", "3.14159 1,000,000 $12.50 #1 @user",
  "1234567890123", "\u00bd \u2153 \u2460 \u2167", "emoji \ud83d\udc69\u200d\ud83d\udcbb \ud83c\uddfa\ud83c\uddf8 \u2764\ufe0f",
  "zero\u200bwidth\u200cjoin\u200d", "int main() { return a->b[i] << 2; }", "<div class=\"x\">&amp;</div>",
  "<|endoftext|>Hello<|endoftext|>", "<|im_start|>user\nhi<|im_end|>\n", "<s>x</s> <unk>", "[CLS] a [SEP] [MASK]",
  "<|user|>\n  hi <|end|>\n<|assistant|>", "<start_of_turn>user\nhi<end_of_turn>", "<|begin_of_text|><|start_header_id|>",
  "<\uff5cbegin\u2581of\u2581sentence\uff5c>x", "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>hi", "<mask> <pad>", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  "\u00e0\u00e1\u00e2\u00e3\u00e4\u00e5\u00e6\u00e7\u00e8\u00e9\u00ea\u00eb", "\u1e9e\u00df \u0130stanbul \u03a3\u03c3\u03c2", "___---===+++",
  "mixedCase camelCase XMLHttpRequest", "\u2581already\u2581escaped",
];

let outFile = "tests/golden/tokenizer_llamacpp.json";
if (process.argv[3] === "--random") {
  const pool = [..."aZ09 \t\n\r'.,!?-_$+<=>^~|`@#%&*()[]{}\"\\/:;", "\u00e9", "e\u0301", "\u00df", "\u0130", "\u03a3",
    "\u0416", "\u0905\u093f", "\u0e01\u0e34", "\uac00", "\u1100\u1161", "\u4e2d", "\u3042", "\uff21", "\uff11", "\u3000",
    "\u00a0", "\u2009", "\u200b", "\u200d", "\ud83e\udd99", "\ud83d\udc69\u200d\ud83d\udcbb", "\u00bd", "\u2460", "\u20ac",
    "\u2581", "\u0627", "\u05d0", "'s", "'LL", "  ", "\n\n", "123", "<s>", "</s>", "<|endoftext|>", "<|im_start|>",
    "<|user|>", "[CLS]", "<mask>", "<|end|>", "<start_of_turn>", "<eos>", "\u0301", "\u064b", "\ufeff", "\u1e9e", "\u2028",
    "\u0085"];
  let seed = 12345;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
  strings.length = 0;
  for (let i = 0, count = Number(process.argv[4] ?? 400); i < count; i++) {
    let s = "";
    for (let k = 0, n = 1 + rnd(24); k < n; k++) s += pool[rnd(pool.length)];
    strings.push(s);
  }
  outFile = process.argv[5] ?? "/tmp/tokenizer_random_goldens.json";
}

const llama = await getLlama({gpu: false, build: "never"});
const out = {llama_cpp: "80fb11ac73e66d89eae2c6a91d8a77428fa733ed", strings, vocabs: {}};
for (const v of vocabs) {
  const model = await llama.loadModel({modelPath: path.join(dir, `ggml-vocab-${v}.gguf`), vocabOnly: true});
  out.vocabs[v] = {
    plain: strings.map((s) => Array.from(model.tokenize(s, false))),
    special: strings.map((s) => Array.from(model.tokenize(s, true))),
  };
  await model.dispose();
  console.error(`${v}: done`);
}
fs.writeFileSync(outFile, JSON.stringify(out) + "\n");
