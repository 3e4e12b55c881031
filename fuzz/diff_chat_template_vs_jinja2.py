#!/usr/bin/env python3
"""Differential check of wgrt's chat-template engine against Python jinja2 on a directory of templates,
typically a libFuzzer corpus grown by fuzz/fuzz_chat_template from tests/corpus/chat_template, or programs from
fuzz/gen_chat_templates.py. Each file is
rendered by jinja2 (driven like HF, tests/golden/make_goldens_chat_templates.py) and by `wgrt template` over
the snippet context (tests/golden/chat_template_snippets.json); it prints the files where the two disagree
(different text, or one fails and the other renders) and a count. A development tool, not run in CI.

Usage: diff_chat_template_vs_jinja2.py CORPUS_DIR path/to/wgrt [max shown]
Known, accepted differences: integers beyond 64 bits (wgrt: an error), Python object addresses printed by
generators (wgrt prints "<generator object>"), range objects printed directly, printf-style '%' formatting,
slicing a non-sequence constant such as (3)[1:] (jinja2 folds it to Undefined at compile time; wgrt raises,
as jinja2 does for the same value at run time).
"""
import json
import os
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "tests", "golden"))
import make_goldens_chat_templates as mg  # noqa: E402


def main():
    corpus, wgrt = sys.argv[1], sys.argv[2]
    max_shown = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    g = json.load(open(os.path.join(root, "tests", "golden", "chat_template_snippets.json"), encoding="utf-8"))
    tmp = tempfile.mkdtemp()
    mfile, tfile = os.path.join(tmp, "m.json"), os.path.join(tmp, "t.json")
    json.dump(g["messages"], open(mfile, "w"))
    json.dump(g["tools"], open(tfile, "w"))
    env = mg.make_env()
    os.environ["WGRT_TEMPLATE_NOW"] = mg.NOW
    stats = {"same": 0, "both_fail": 0, "text_differs": 0, "only_wgrt_fails": 0, "only_jinja2_fails": 0}
    shown = 0
    for name in sorted(os.listdir(corpus)):
        path = os.path.join(corpus, name)
        try:
            src = open(path, "rb").read().decode("utf-8")
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        try:
            want = env.from_string(src).render(messages=g["messages"], tools=g["tools"], documents=None,
                                               add_generation_prompt=True, bos_token=g["bos_token"],
                                               eos_token=g["eos_token"]).encode("utf-8", "surrogatepass")
            ok = True
        except Exception as e:  # noqa: BLE001 (any jinja2 failure)
            want, ok = ("%s: %s" % (type(e).__name__, e)).encode(), False
        r = subprocess.run([wgrt, "template", "--template", path, "--messages", mfile, "--tools", tfile,
                            "--add-generation-prompt", "--bos-token", g["bos_token"], "--eos-token", g["eos_token"]],
                           capture_output=True, timeout=120)
        if ok and r.returncode == 0:
            kind = "same" if r.stdout == want else "text_differs"
        elif ok:
            kind = "only_wgrt_fails"
        else:
            kind = "both_fail" if r.returncode != 0 else "only_jinja2_fails"
        stats[kind] += 1
        if kind not in ("same", "both_fail") and shown < max_shown:
            shown += 1
            print("%s %s\n  jinja2: %r\n  wgrt:   %r" % (kind, path, want[:300], (r.stdout or r.stderr)[:300]))
    print(stats)


if __name__ == "__main__":
    main()
