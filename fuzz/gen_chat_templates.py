#!/usr/bin/env python3
"""Random Jinja2 chat-template-like programs (loops, ifs, sets, macros, filters, tests, str methods, slices and
whitespace control) for differential checks: gen_chat_templates.py OUT_DIR [seed] [count], then
fuzz/diff_chat_template_vs_jinja2.py OUT_DIR build/wgrt. A development tool, not run in CI."""
import random, os, sys
R = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
STR = ["'a'", "'Hello World'", "' pad '", "'é😀ß'", "'x,y,,z'", "\"it's\"", "'<b>&'", "''", "'A b C'", "'\\n\\tq'"]
NUM = ["0", "1", "-2", "3", "2.5", "-0.5", "10", "1e3", "7"]
NAMES = ["messages", "tools", "ns.v", "x", "nothing", "add_generation_prompt", "bos_token"]
LOOP_NAMES = ["m", "loop.index", "loop.first", "loop.last", "loop.length", "loop.revindex0", "m.role", "m['content']"]
in_loop = [0]
FILT = ["trim", "upper", "lower", "title", "capitalize", "length", "string", "list", "first", "last", "reverse", "sort",
        "unique", "tojson", "join(', ')", "join", "default('d')", "d('z', true)", "int", "float", "abs", "round", "round(1)",
        "replace('a', 'b')", "items", "dictsort", "selectattr('role', 'equalto', 'user')", "rejectattr('role')",
        "map(attribute='role')", "map('upper')", "select", "reject('none')", "count", "wordcount", "indent(2)", "safe",
        "e", "sum", "max", "min", "batch(2)", "tojson(indent=2)", "tojson(sort_keys=true)", "trim('x')", "sort(reverse=true)",
        "sort(attribute='role')", "unique(attribute='role')"]
TESTS = ["defined", "undefined", "none", "string", "number", "mapping", "iterable", "sequence", "boolean", "true", "false",
         "odd", "even", "divisibleby 2", "eq 1", "in [1, 'a']", "integer", "float", "lower", "upper"]
METH = ["strip()", "lstrip()", "rstrip('x')", "split()", "split(',')", "rsplit(',', 1)", "upper()", "lower()", "title()",
        "startswith('H')", "endswith(('d', 'x'))", "replace('l', 'L')", "find('o')", "count('l')", "format(1, 'b')",
        "capitalize()", "splitlines()", "isdigit()", "get('role')", "get('k', 5)", "items()", "keys()", "values()"]

def atom(d):
    c = R.randrange(10)
    if c < 2: return R.choice(STR)
    if c < 4: return R.choice(NUM)
    if c < 7: return R.choice(NAMES + (LOOP_NAMES if in_loop[0] else []))
    if c == 7: return "[" + ", ".join(expr(d + 1) for _ in range(R.randrange(4))) + "]"
    if c == 8: return "{" + ", ".join("%s: %s" % (R.choice(STR), expr(d + 1)) for _ in range(R.randrange(3))) + "}"
    return R.choice(["none", "true", "false", "messages[0]", "messages[-1].content", "tools[0].function", "messages[1:3]", "'hello'[::-1]", "range(4)"])

def expr(d=0):
    if d > 3: return atom(d)
    c = R.randrange(12)
    a = atom(d) if c < 4 else expr(d + 1)
    if c < 3: return a
    if c == 4: return "%s %s %s" % (a, R.choice(["+", "-", "*", "/", "//", "%", "~", "==", "!=", "<", ">=", "and", "or", "in", "not in"]), expr(d + 1))
    if c == 5: return "(%s)|%s" % (a, R.choice(FILT))
    if c == 6: return "(%s) is %s%s" % (a, R.choice(["", "not "]), R.choice(TESTS))
    if c == 7: return "(%s).%s" % (a, R.choice(METH))
    if c == 8: return "(%s if %s else %s)" % (a, expr(d + 1), expr(d + 1))
    if c == 9: return "not " + a
    if c == 10: return "(%s)[%s]" % (a, R.choice(["0", "-1", "1:", ":2", "::-1", "'role'", "'content'"]))
    return "%s|%s|%s" % (a, R.choice(FILT), R.choice(FILT))

def ws():
    return R.choice(["", "\n", "  ", "\n  ", " \n", "\n\n"])

def tag(body):
    return R.choice(["{%", "{%-", "{%+"]) + " " + body + " " + R.choice(["%}", "-%}", "+%}"])

def stmt(d=0):
    c = R.randrange(9 if d < 3 else 3)
    if c < 2: return ws() + R.choice(["{{ ", "{{- "]) + expr() + R.choice([" }}", " -}}"]) + ws()
    if c == 2: return R.choice(["text ", "line\n", "  indented\n", "é "])
    if c == 3:
        head = tag("for m in %s%s" % (R.choice(["messages", "range(3)", "'ab'", "tools", "messages|selectattr('role')", "{'a': 1}", "messages[1:]"]), R.choice(["", " if m is defined", " if m is mapping"])))
        in_loop[0] += 1
        body = block(d)
        in_loop[0] -= 1
        return head + body + (tag("else") + block(d) if R.random() < .2 else "") + tag("endfor")
    if c == 4: return tag("if " + expr()) + block(d) + (tag("elif " + expr()) + block(d) if R.random() < .3 else "") + (tag("else") + block(d) if R.random() < .5 else "") + tag("endif")
    if c == 5: return tag("set x = " + expr())
    if c == 6: return tag("set ns.v = " + expr())
    if c == 7: return tag("macro mc(a, b='B')") + block(d) + "{{ a }}{{ b }}" + tag("endmacro") + "{{ mc(" + expr() + ") }}"
    return tag("set x") + block(d) + tag("endset")

def block(d):
    return "".join(stmt(d + 1) for _ in range(R.randrange(1, 4)))

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for k in range(int(sys.argv[3]) if len(sys.argv) > 3 else 300):
    src = "{% set ns = namespace(v=0) %}" + "".join(stmt() for _ in range(R.randrange(1, 6)))
    open(os.path.join(out, "g%04d.jinja" % k), "w").write(src)
