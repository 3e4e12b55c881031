"""wgrt serve group `batching` (run by test_serve.py): concurrent requests give the same greedy text as each run
alone, and they did share decode steps."""
import threading
import unittest

from serve_case import ARGS, stories_args
from serve_util import Server, stream_text


class Batching(unittest.TestCase):
    def test_concurrent_equal_alone(self):
        prompts = ["Once upon a time", "The cat", "Lily and Tom went", "A big red ball", "One day, a bird", "Sam had a toy"]
        s = Server(ARGS.wgrt, stories_args(), ["--parallel", "4", "--queue", "8"])
        try:
            body = lambda p: {"prompt": p, "max_tokens": 40, "temperature": 0}
            alone = [s.post("/v1/completions", body(p))[2]["choices"][0]["text"] for p in prompts]
            m0 = s.metrics()
            got = [None] * len(prompts)

            def go(i):
                if i % 2:
                    got[i] = stream_text(s.stream("/v1/completions", body(prompts[i]))[2], False)
                else:
                    got[i] = s.post("/v1/completions", body(prompts[i]))[2]["choices"][0]["text"]
            ts = [threading.Thread(target=go, args=(i,)) for i in range(len(prompts))]
            for t in ts:
                t.start()
            for t in ts:
                t.join(120)
            self.assertEqual(got, alone)
            m1 = s.metrics()
            tokens = m1["wgrt_tokens_generated_total"] - m0["wgrt_tokens_generated_total"]
            steps = m1["wgrt_decode_steps_total"] - m0["wgrt_decode_steps_total"]
            self.assertEqual(tokens, 40 * len(prompts))
            # Batched: 240 tokens in far fewer steps than one per token (4 slots: about 60-80 steps).
            self.assertLess(steps, tokens / 2, (steps, tokens))
        finally:
            self.assertEqual(s.stop(), 0)
