"""wgrt serve group `chat` (run by test_serve.py): the synthesized qwen2 chat model: chat completions equal
`wgrt chat -p`, streamed deltas, n choices, a second turn reusing the slot's KV cache."""
from serve_case import ARGS, ServerCase
from serve_util import Server, run, stream_text


class Chat(ServerCase):
    @classmethod
    def start(cls):
        return Server(ARGS.wgrt, ["-m", ARGS.chat_model], ["--parallel", "3"])

    def test_chat_golden_equals_wgrt_chat(self):
        for q in ["hello there", "what is two plus two"]:
            want = run([ARGS.wgrt, "chat", "-m", ARGS.chat_model, "-p", q, "-n", "24"]).removesuffix("\n")
            st, _, r = self.s.post("/v1/chat/completions", {"messages": [{"role": "user", "content": q}], "max_tokens": 24, "temperature": 0})
            self.assertEqual(st, 200, r)
            self.assertEqual(r["object"], "chat.completion")
            self.assertEqual(r["choices"][0]["message"], {"role": "assistant", "content": want})
            self.assertIn(r["choices"][0]["finish_reason"], ("stop", "length"))
            self.assertGreater(len(want), 0)

    def test_chat_stream_deltas(self):
        body = {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": [{"type": "text", "text": "hi"}]}],
                "max_tokens": 16, "temperature": 0}
        whole = self.s.post("/v1/chat/completions", body)[2]
        st, raw, events, done = self.s.stream("/v1/chat/completions", body)
        self.assertTrue(done)
        self.assertEqual(events[0]["object"], "chat.completion.chunk")
        self.assertEqual(events[0]["choices"][0]["delta"].get("role"), "assistant")
        self.assertEqual(stream_text(events, True), whole["choices"][0]["message"]["content"])
        self.assertEqual(events[-1]["choices"][0]["finish_reason"], whole["choices"][0]["finish_reason"])

    def test_chat_n_choices(self):
        body = {"messages": [{"role": "user", "content": "hello there"}], "max_tokens": 12, "temperature": 1.0, "seed": 3}
        alone = [self.s.post("/v1/chat/completions", dict(body, seed=3 + i))[2]["choices"][0]["message"]["content"] for i in range(2)]
        st, _, r = self.s.post("/v1/chat/completions", dict(body, n=2))
        self.assertEqual(st, 200, r)
        self.assertEqual([c["message"]["content"] for c in r["choices"]], alone)
        st, raw, events, done = self.s.stream("/v1/chat/completions", dict(body, n=2))
        self.assertTrue(done)
        roles = [c["index"] for e in events for c in e["choices"] if c["delta"].get("role") == "assistant"]
        self.assertEqual(sorted(roles), [0, 1])  # one role delta per choice
        per = ["", ""]
        for e in events:
            for c in e["choices"]:
                per[c["index"]] += c["delta"].get("content") or ""
        self.assertEqual(per, alone)

    def test_second_turn_reuses_the_slot_cache(self):
        msgs = [{"role": "user", "content": "tell me a story"}]
        r1 = self.s.post("/v1/chat/completions", {"messages": msgs, "max_tokens": 8, "temperature": 0})[2]
        msgs += [{"role": "assistant", "content": r1["choices"][0]["message"]["content"]}, {"role": "user", "content": "more"}]
        r2 = self.s.post("/v1/chat/completions", {"messages": msgs, "max_tokens": 8, "temperature": 0})[2]
        self.assertGreater(r2["usage"]["prompt_tokens_details"]["cached_tokens"], r1["usage"]["prompt_tokens"] // 2)
