#!/usr/bin/env python3
"""Renders the chat-template conformance goldens with Python's jinja2 (the oracle), driven the way Hugging Face
transformers' apply_chat_template drives it: ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
extensions=[AssistantTracker-like `generation` tag, jinja2.ext.loopcontrols]), tojson = json.dumps(ensure_ascii=
False, ...), globals raise_exception and strftime_now, render(messages=, tools=, documents=None,
add_generation_prompt=, bos_token=, eos_token=).

Usage: make_goldens_chat_templates.py TEMPLATE_DIR OUT_DIR
       make_goldens_chat_templates.py --snippets CORPUS_DIR OUT.json
Writes OUT_DIR/conv/*.json (the conversations, keys in the order HF gets them),
OUT_DIR/expected/<template>__<case>.txt (rendered text) and OUT_DIR/manifest.json (one entry per
template x case: expect "ok", "raise" (raise_exception, with its message) or "error" (any other jinja2 error)).
strftime_now returns the fixed time WGRT_TEMPLATE_NOW (default 2024-07-26 12:34:56), as wgrt does when the
variable is set. Run by tests/golden/chat_templates_setup.sh at test time; nothing it writes is committed.
"""
import datetime
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

NOW = os.environ.get("WGRT_TEMPLATE_NOW", "2024-07-26 12:34:56")
BOS, EOS = "<s>", "</s>"

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Get the current weather in a city.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "add", "description": "Add two numbers.",
        "parameters": {"type": "object", "properties": {
            "a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}},
]

CALL = {"id": "call_1", "type": "function",
        "function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}}

CONVS = {
    "user": [{"role": "user", "content": "Hello!"}],
    "sys_user": [{"role": "system", "content": "You are a helpful assistant."},
                 {"role": "user", "content": "What is 2 + 2?"}],
    "multi_turn": [{"role": "system", "content": "You are terse."},
                   {"role": "user", "content": "Hi there"},
                   {"role": "assistant", "content": "Hello. How can I help?"},
                   {"role": "user", "content": "Tell me a joke.\nMake it short."}],
    "no_system_multi": [{"role": "user", "content": "First question"},
                        {"role": "assistant", "content": "First answer"},
                        {"role": "user", "content": "Second question"},
                        {"role": "assistant", "content": "Second answer"},
                        {"role": "user", "content": "Third question"}],
    "assistant_last": [{"role": "user", "content": "Say hi."},
                       {"role": "assistant", "content": "  Hi!  "}],
    "non_ascii": [{"role": "system", "content": "Réponds en français. 日本語も話せます。"},
                  {"role": "user", "content": "Ça va? 😀 naïve café — «quotes» \"double\" 'single' \\ back\ttab"},
                  {"role": "assistant", "content": "Très bien, merci! ✓ Ωμέγα Привет"},
                  {"role": "user", "content": "<b>html</b> & {{ not jinja }} {% raw %}"}],
    "tool_calls": [{"role": "system", "content": "You can call tools."},
                   {"role": "user", "content": "What's the weather in Paris?"},
                   {"role": "assistant", "content": "", "tool_calls": [CALL]},
                   {"role": "tool", "tool_call_id": "call_1", "name": "get_weather",
                    "content": "{\"temperature\": 18, \"sky\": \"clear\"}"},
                   {"role": "assistant", "content": "It is 18 °C and clear in Paris."},
                   {"role": "user", "content": "Thanks. And 2.5 + 4?"}],
    "content_parts": [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
                      {"role": "user", "content": [{"type": "text", "text": "Part one."},
                                                   {"type": "text", "text": "Part two: ünïcode."}]}],
    "string_args_call": [{"role": "user", "content": "Add 2 and 3."},
                         {"role": "assistant", "content": None, "tool_calls": [
                             {"id": "call_2", "type": "function",
                              "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": 3}"}}]},
                         {"role": "tool", "tool_call_id": "call_2", "name": "add", "content": "5"}],
    "reasoning": [{"role": "user", "content": "Why is the sky blue?"},
                  {"role": "assistant", "content": "Rayleigh scattering.",
                   "reasoning_content": "Short wavelengths scatter more."},
                  {"role": "user", "content": "And sunsets?"}],
}

# (case name, conversation, add_generation_prompt, with tools[, extra variables])
CASES = [
    ("user_gp", "user", True, False),
    ("sys_user_gp", "sys_user", True, False),
    ("sys_user", "sys_user", False, False),
    ("multi_turn_gp", "multi_turn", True, False),
    ("no_system_multi_gp", "no_system_multi", True, False),
    ("assistant_last", "assistant_last", False, False),
    ("assistant_last_gp", "assistant_last", True, False),
    ("non_ascii_gp", "non_ascii", True, False),
    ("tools_gp", "sys_user", True, True),
    ("tool_calls_gp", "tool_calls", True, True),
    ("content_parts_gp", "content_parts", True, False),
    ("string_args_call_gp", "string_args_call", True, True),
    ("reasoning_gp", "reasoning", True, False),
    ("thinking_off_gp", "multi_turn", True, False, {"enable_thinking": False}),
]


class Raised(jinja2.exceptions.TemplateError):
    """raise_exception() from the template (HF raises TemplateError(message))."""


class GenerationTag(jinja2.ext.Extension):
    """HF's AssistantTracker `{% generation %}` tag: renders its body (HF also records offsets we do not need)."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def make_env():
    def raise_exception(message):
        raise Raised(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(fmt):
        return datetime.datetime.strptime(NOW, "%Y-%m-%d %H:%M:%S").strftime(fmt)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationTag, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def sorted_keys(x):
    """The snippet context with its keys sorted, as it is stored in chat_template_snippets.json."""
    if isinstance(x, dict):
        return {k: sorted_keys(x[k]) for k in sorted(x)}
    if isinstance(x, list):
        return [sorted_keys(v) for v in x]
    return x


def one_line(s):
    return " ".join(str(s).split())


def main():
    tdir, out = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(out, "conv"), exist_ok=True)
    os.makedirs(os.path.join(out, "expected"), exist_ok=True)
    for name, conv in CONVS.items():
        with open(os.path.join(out, "conv", name + ".json"), "w", encoding="utf-8") as f:
            json.dump(conv, f, ensure_ascii=False, indent=1)
    with open(os.path.join(out, "conv", "tools.json"), "w", encoding="utf-8") as f:
        json.dump(TOOLS, f, ensure_ascii=False, indent=1)
    env = make_env()
    manifest = []
    for tname in sorted(os.listdir(tdir)):
        if not tname.endswith(".jinja"):
            continue
        with open(os.path.join(tdir, tname), encoding="utf-8") as f:
            source = f.read()
        try:
            tmpl, compile_error = env.from_string(source), None
        except Exception as e:  # syntax error, unknown filter, ...
            tmpl, compile_error = None, e
        for case, conv, gp, with_tools, *more in CASES:
            extra = more[0] if more else {}
            entry = {"template": tname, "case": case, "messages": "conv/%s.json" % conv,
                     "tools": "conv/tools.json" if with_tools else None, "add_generation_prompt": gp, "vars": extra}
            try:
                if compile_error:
                    raise compile_error
                text = tmpl.render(messages=CONVS[conv], tools=TOOLS if with_tools else None,
                                   documents=None, add_generation_prompt=gp, bos_token=BOS, eos_token=EOS,
                                   **extra)
                rel = "expected/%s__%s.txt" % (tname[:-6], case)
                with open(os.path.join(out, rel), "wb") as f:
                    f.write(text.encode("utf-8", "surrogatepass"))
                entry.update(expect="ok", output=rel)
            except Raised as e:
                entry.update(expect="raise", message=str(e))
            except Exception as e:
                entry.update(expect="error", message="%s: %s" % (type(e).__name__, one_line(e)))
            manifest.append(entry)
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"jinja2": jinja2.__version__, "now": NOW, "bos_token": BOS, "eos_token": EOS, "cases": manifest},
                  f, ensure_ascii=False, indent=1)
    counts = {}
    for m in manifest:
        counts[m["expect"]] = counts.get(m["expect"], 0) + 1
    print("chat template goldens (jinja2 %s): %d cases %s" % (jinja2.__version__, len(manifest), counts))


def snippets(corpus, out_json):
    """Our own feature snippets (tests/corpus/chat_template/*.jinja, also the fuzz seeds) over one fixed context
    (the tool_calls conversation, TOOLS, add_generation_prompt=True). Their goldens are small and committed
    (tests/golden/chat_template_snippets.json) so the host tests check the interpreter without the fixture."""
    env = make_env()
    res = {}
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".jinja"):
            continue
        with open(os.path.join(corpus, name), encoding="utf-8") as f:
            source = f.read()
        try:
            text = env.from_string(source).render(messages=sorted_keys(CONVS["tool_calls"]), tools=sorted_keys(TOOLS),
                                                  documents=None, add_generation_prompt=True, bos_token=BOS,
                                                  eos_token=EOS)
            res[name] = {"expect": "ok", "output": text}
        except Raised as e:
            res[name] = {"expect": "raise", "message": str(e)}
        except Exception as e:
            res[name] = {"expect": "error", "message": "%s: %s" % (type(e).__name__, one_line(e))}
    with open(out_json, "w", encoding="utf-8") as f:
        json.dump({"jinja2": jinja2.__version__, "now": NOW, "bos_token": BOS, "eos_token": EOS,
                   "messages": sorted_keys(CONVS["tool_calls"]), "tools": sorted_keys(TOOLS), "snippets": res},
                  f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    print("chat template snippet goldens: %d snippets" % len(res))


if __name__ == "__main__":
    if sys.argv[1] == "--snippets":
        snippets(sys.argv[2], sys.argv[3])
    else:
        main()
