"""wgrt serve group `sampling` (run by test_serve.py): n > 1 choices (choice i = the request with seed + i alone;
usage sums; streamed by index); GPU sampling in the batched graph (WGRT_GPU_SAMPLING=1; lavapipe's policy is the
CPU sampler): per-request parameters in one mixed batch (greedy, top_k 1 == greedy, temperatures, top-p, min-p,
repeat_penalty) equal each request alone; seeded repeats; the draw differs from the CPU path's (the switch is
real); malformed sampling parameters are a 400 and the server stays up."""
import threading

from serve_case import ARGS, ServerCase, stories_args
from serve_util import Server, stream_text


class Sampling(ServerCase):
    MIXED = [
        {"prompt": "Once upon a time", "temperature": 0},
        {"prompt": "Once upon a time", "temperature": 1.0, "top_k": 1, "seed": 5},  # top_k 1: the argmax
        {"prompt": "The cat", "temperature": 0.9, "seed": 7},
        {"prompt": "Lily and Tom went", "temperature": 1.2, "top_p": 0.9, "min_p": 0.02, "seed": 9},
        {"prompt": "One day, a bird", "temperature": 0.8, "top_k": 40, "repeat_penalty": 1.3, "seed": 11},
        {"prompt": "The cat", "temperature": 0.9, "seed": 8},
    ]

    @classmethod
    def start(cls):
        return Server(ARGS.wgrt, stories_args(), ["--parallel", "4", "--queue", "8"], env={"WGRT_GPU_SAMPLING": "1"})

    def complete(self, body, n=40, server=None):
        st, _, r = (server or self.s).post("/v1/completions", dict(body, max_tokens=n))
        self.assertEqual(st, 200, r)
        self.assertLessEqual(r["usage"]["completion_tokens"], n)
        return r["choices"][0]["text"]

    def test_mixed_batch_equals_each_alone(self):
        alone = [self.complete(b) for b in self.MIXED]
        self.assertEqual(alone[1], alone[0])        # top_k 1 == greedy
        self.assertNotEqual(alone[2], alone[5])     # the seed matters
        self.assertTrue(all(len(t) > 20 for t in alone), alone)
        m0 = self.s.metrics()
        got = [None] * len(self.MIXED)

        def go(i):
            if i % 2:
                got[i] = stream_text(self.s.stream("/v1/completions", dict(self.MIXED[i], max_tokens=40))[2], False)
            else:
                got[i] = self.complete(self.MIXED[i])
        ts = [threading.Thread(target=go, args=(i,)) for i in range(len(self.MIXED))]
        for t in ts:
            t.start()
        for t in ts:
            t.join(120)
        self.assertEqual(got, alone)
        m1 = self.s.metrics()
        tokens = m1["wgrt_tokens_generated_total"] - m0["wgrt_tokens_generated_total"]
        steps = m1["wgrt_decode_steps_total"] - m0["wgrt_decode_steps_total"]
        self.assertLess(steps, tokens / 2, (steps, tokens))  # they shared steps

    def test_seeded_repeats_and_differs_from_the_cpu_draw(self):
        body = {"prompt": "One day", "temperature": 0.9, "top_p": 0.95, "top_k": 40, "min_p": 0.01, "seed": 42}
        a, b, c = self.complete(body), self.complete(body), self.complete(dict(body, seed=43))
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        # The CPU sampler draws in another order (same distribution, other tokens): the GPU path is the one used.
        cpu = Server(ARGS.wgrt, stories_args(), ["--parallel", "2"], env={"WGRT_GPU_SAMPLING": "0"})
        try:
            self.assertNotEqual(self.complete(body, server=cpu), a)
            greedy = {"prompt": "One day", "temperature": 0}
            self.assertEqual(self.complete(greedy, server=cpu), self.complete(greedy))
        finally:
            self.assertEqual(cpu.stop(), 0)

    def test_n_choices(self):
        body = {"prompt": "The cat", "temperature": 0.9, "seed": 7, "max_tokens": 30}
        alone = [self.s.post("/v1/completions", dict(body, seed=7 + i))[2] for i in range(3)]
        st, _, r = self.s.post("/v1/completions", dict(body, n=3))
        self.assertEqual(st, 200, r)
        self.assertEqual([c["index"] for c in r["choices"]], [0, 1, 2])
        self.assertEqual([c["text"] for c in r["choices"]], [a["choices"][0]["text"] for a in alone])
        self.assertEqual([c["finish_reason"] for c in r["choices"]], [a["choices"][0]["finish_reason"] for a in alone])
        self.assertEqual(len({c["text"] for c in r["choices"]}), 3)
        self.assertEqual(r["usage"]["prompt_tokens"], alone[0]["usage"]["prompt_tokens"])
        self.assertEqual(r["usage"]["completion_tokens"], sum(a["usage"]["completion_tokens"] for a in alone))
        self.assertEqual(r["usage"]["total_tokens"], r["usage"]["prompt_tokens"] + r["usage"]["completion_tokens"])
        # Streamed: each chunk names its choice; per index the same text, one finish chunk each, usage at the end.
        st, raw, events, done = self.s.stream("/v1/completions", dict(body, n=3, stream_options={"include_usage": True}))
        self.assertTrue(done)
        per = {i: "" for i in range(3)}
        finishes = {}
        for e in events:
            for c in e["choices"]:
                per[c["index"]] += c["text"]
                if c["finish_reason"]:
                    self.assertNotIn(c["index"], finishes)
                    finishes[c["index"]] = c["finish_reason"]
        self.assertEqual([per[i] for i in range(3)], [c["text"] for c in r["choices"]])
        self.assertEqual(sorted(finishes), [0, 1, 2])
        self.assertEqual(events[-1]["usage"], r["usage"] | {"prompt_tokens_details": events[-1]["usage"]["prompt_tokens_details"]})
        # More choices than slots: a 400 naming the limit.
        st, _, e = self.s.post("/v1/completions", dict(body, n=5))
        self.assertEqual(st, 400, e)
        self.assertIn("at most 4", e["error"]["message"])

    def test_n_choices_share_one_prefill(self):
        # A prompt no slot holds: choice 0 prefills it, choices 1..3 copy its KV rows (BatchLlm::copy_prefix) and
        # run only the last prompt token (as their first decode row): prefill_tokens_total grows by one prompt less
        # choice 0's cached tokens, not 4x that.
        # Each choice still equals the seed + i request alone.
        body = {"prompt": "Tom and his sister found a shiny blue stone near the old river", "temperature": 0.9,
                "seed": 21, "max_tokens": 16}
        m0 = self.s.metrics()
        st, _, r = self.s.post("/v1/completions", dict(body, n=4))
        m1 = self.s.metrics()
        self.assertEqual(st, 200, r)
        u = r["usage"]
        self.assertGreater(u["prompt_tokens"], 10)
        ran = m1["wgrt_prefill_tokens_total"] - m0["wgrt_prefill_tokens_total"]
        self.assertEqual(ran, u["prompt_tokens"] - u["prompt_tokens_details"]["cached_tokens"])
        alone = [self.s.post("/v1/completions", dict(body, seed=21 + i))[2]["choices"][0]["text"] for i in range(4)]
        self.assertEqual([c["text"] for c in r["choices"]], alone)
        self.assertGreater(len(set(alone)), 1)

    def test_malformed_sampling_parameters_are_400(self):
        cases = [({"temperature": -0.5}, "'temperature' must be in"), ({"temperature": "hot"}, "'temperature' must be a number"),
                 ({"top_p": 0}, "'top_p' must be in"), ({"top_p": 1.5}, "'top_p' must be in"), ({"min_p": 2}, "'min_p' must be in"),
                 ({"top_k": -1}, "'top_k' must be at least 0"), ({"top_k": 2.5}, "'top_k' must be an integer"),
                 ({"repeat_penalty": 0}, "'repeat_penalty' must be in"), ({"repeat_penalty": 1e9}, "'repeat_penalty' must be in"),
                 ({"seed": "x"}, "'seed' must be an integer")]
        for extra, needle in cases:
            st, _, r = self.s.post("/v1/completions", dict({"prompt": "x", "max_tokens": 3, "temperature": 0.8}, **extra))
            self.assertEqual(st, 400, (extra, r))
            self.assertIn(needle, r["error"]["message"])
            self.assertNotIn("\n", r["error"]["message"])
            self.assertEqual(r["error"]["param"], next(iter(extra)))
        self.assertEqual(self.s.request("GET", "/health")[0], 200)
        self.assertGreater(len(self.complete({"prompt": "x", "temperature": 0.8, "seed": 1}, n=5)), 0)
