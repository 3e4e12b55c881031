#!/usr/bin/python3
"""Builds a ViT-B/16 image classifier as an ONNX file with python3-onnx's helper API (no PyTorch needed), in the
node forms torch.onnx.export (opset 17) emits for timm's VisionTransformer, weights as external data.

Network (standard ViT-B/16 at --depth 12): pixels [batch, 3, 224, 224] -> Conv 16x16 stride 16 (768 out) ->
Reshape [batch, 768, 196] -> Transpose -> Concat with the class token (Expand to the batch) -> Add position
embeddings [1, 197, 768] -> depth x pre-LN encoder block -> LayerNormalization -> "features" [batch, 197, 768];
Gather of the class-token row -> Gemm (768 -> 1000, transB) -> "logits" [batch, 1000].
Encoder block: LayerNormalization (eps 1e-6) -> MatMul + Add (qkv, 768 -> 2304) -> Reshape [batch, T, 3, 12, 64]
-> Transpose [2, 0, 3, 1, 4] -> Gather 0/1/2 (q, k, v) -> MatMul(q, Transpose(k)) -> Mul 1/8 -> Softmax ->
MatMul v -> Transpose -> Reshape [batch, T, 768] -> MatMul + Add (proj) -> Add residual; LayerNormalization ->
MatMul + Add (fc1, 3072) -> erf GELU as exported (Div sqrt 2, Erf, Add 1, Mul, Mul 0.5) -> MatMul + Add (fc2)
-> Add residual. The batch is symbolic ("batch"); the Reshape targets are computed from Shape/Gather/Unsqueeze/
Concat of the running tensor as the exporter writes them (host-folded shape subgraphs).

Weights: fixed-seed numpy (PCG64, seed --seed, in the order the initializers are listed), scaled like a real
init so activations stay O(1) and the output is not degenerate: matrices uniform with variance 1 / fan_in,
LayerNorm scales 1 + 0.1 u, biases, class token and position embeddings 0.1 u (u uniform in [-1, 1)).
All initializers of 1 KiB or more go to one external data file, <model>.data beside the model (never
committed: tests and benchmarks make them at run time).

Usage: /usr/bin/python3 tests/golden/make_vit_onnx.py OUT.onnx [--depth 12] [--seed 0] [--classes 1000] [--data-only]
(tests/models/onnx_vit_test.cpp and bench/ort/make_models.py run it; about 12 s and 347 MB at depth 12.)
"""
import argparse
import os
import sys

import numpy as np

try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:  # --data-only needs numpy alone
    onnx = None

IMAGE, PATCH, CHANNELS, WIDTH, HEADS, MLP, EPS = 224, 16, 3, 768, 12, 3072, 1e-6


class Builder:
    """graph=False: only the weights (same values, same order), no onnx package needed."""

    def __init__(self, seed, graph=True):
        self.rng = np.random.default_rng(seed)
        self.graph = graph
        self.nodes, self.inits, self.arrays, self.n = [], [], [], 0

    def u(self, shape):
        return self.rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)

    def init(self, name, a):
        self.arrays.append(np.ascontiguousarray(a, dtype=np.float32))
        if self.graph:
            self.inits.append(numpy_helper.from_array(self.arrays[-1], name))
        return name

    def matrix(self, name, shape, fan_in):
        return self.init(name, self.u(shape) * np.float32(np.sqrt(3.0 / fan_in)))

    def node(self, op, inputs, n_out=1, **attrs):
        self.n += 1
        outs = [f"{op}_{self.n}" + (f"_{k}" if n_out > 1 else "") for k in range(n_out)]
        if self.graph:
            self.nodes.append(helper.make_node(op, inputs, outs, name=f"/{op}_{self.n}", **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, a):
        return self.node("Constant", [], **({"value": numpy_helper.from_array(a)} if self.graph else {}))

    def const_i64(self, values):
        return self.const(np.array(values, dtype=np.int64))

    def const_f32(self, value):
        return self.const(np.array(value, dtype=np.float32))

    def dim(self, x, axis):  # Shape -> Gather(axis) -> Unsqueeze: a [1] int64 tensor, as the exporter writes it
        return self.node("Unsqueeze", [self.node("Gather", [self.node("Shape", [x]), self.const_i64(axis)], axis=0),
                                       self.const_i64([0])])

    def layernorm(self, x, prefix):
        w = self.init(prefix + ".weight", 1 + np.float32(0.1) * self.u((WIDTH,)))
        b = self.init(prefix + ".bias", np.float32(0.1) * self.u((WIDTH,)))
        return self.node("LayerNormalization", [x, w, b], axis=-1, epsilon=EPS)

    def linear(self, x, prefix, k, n):
        w = self.matrix(prefix + ".weight", (k, n), k)  # stored [in, out] as the exporter's MatMul operand
        b = self.init(prefix + ".bias", np.float32(0.1) * self.u((n,)))
        return self.node("Add", [self.node("MatMul", [x, w]), b])


def block(g, x, i):
    p = f"blocks.{i}"
    h = g.layernorm(x, p + ".norm1")
    qkv = g.linear(h, p + ".attn.qkv", WIDTH, 3 * WIDTH)
    hd = WIDTH // HEADS
    shape5 = g.node("Concat", [g.dim(h, 0), g.dim(h, 1), g.const_i64([3, HEADS, hd])], axis=0)
    t = g.node("Transpose", [g.node("Reshape", [qkv, shape5])], perm=[2, 0, 3, 1, 4])
    q, k, v = (g.node("Gather", [t, g.const_i64(j)], axis=0) for j in range(3))
    s = g.node("Mul", [g.node("MatMul", [q, g.node("Transpose", [k], perm=[0, 1, 3, 2])]), g.const_f32(1.0 / np.sqrt(hd))])
    a = g.node("MatMul", [g.node("Softmax", [s], axis=-1), v])
    shape3 = g.node("Concat", [g.dim(h, 0), g.dim(h, 1), g.const_i64([WIDTH])], axis=0)
    o = g.node("Reshape", [g.node("Transpose", [a], perm=[0, 2, 1, 3]), shape3])
    x = g.node("Add", [x, g.linear(o, p + ".attn.proj", WIDTH, WIDTH)])
    h = g.linear(g.layernorm(x, p + ".norm2"), p + ".mlp.fc1", WIDTH, MLP)
    erf = g.node("Erf", [g.node("Div", [h, g.const_f32(np.sqrt(2.0))])])
    h = g.node("Mul", [g.node("Mul", [h, g.node("Add", [erf, g.const_f32(1.0)])]), g.const_f32(0.5)])
    return g.node("Add", [x, g.linear(h, p + ".mlp.fc2", MLP, WIDTH)])


def build(depth, seed=0, classes=1000, graph=True):
    g = Builder(seed, graph)
    grid = IMAGE // PATCH
    conv_w = g.matrix("patch_embed.proj.weight", (WIDTH, CHANNELS, PATCH, PATCH), CHANNELS * PATCH * PATCH)
    conv_b = g.init("patch_embed.proj.bias", np.float32(0.1) * g.u((WIDTH,)))
    cls = g.init("cls_token", np.float32(0.1) * g.u((1, 1, WIDTH)))
    pos = g.init("pos_embed", np.float32(0.1) * g.u((1, grid * grid + 1, WIDTH)))
    x = g.node("Conv", ["pixels", conv_w, conv_b], kernel_shape=[PATCH, PATCH], strides=[PATCH, PATCH],
               pads=[0, 0, 0, 0], dilations=[1, 1], group=1)
    flat = g.node("Concat", [g.dim(x, 0), g.dim(x, 1), g.const_i64([-1])], axis=0)
    x = g.node("Transpose", [g.node("Reshape", [x, flat])], perm=[0, 2, 1])
    cls_shape = g.node("Concat", [g.dim(x, 0), g.const_i64([-1, -1])], axis=0)
    # Expand with -1 is not ONNX; the exporter writes the target through Where(Equal(shape, -1), 1, shape).
    minus1 = g.node("Equal", [cls_shape, g.const_i64([-1, -1, -1])])
    cls_shape = g.node("Where", [minus1, g.const_i64([1, 1, 1]), cls_shape])
    x = g.node("Add", [g.node("Concat", [g.node("Expand", [cls, cls_shape]), x], axis=1), pos])
    for i in range(depth):
        x = block(g, x, i)
    g.layernorm(x, "norm")
    if graph:
        g.nodes[-1].output[0] = "features"
    pooled = g.node("Gather", ["features", g.const_i64(0)], axis=1)
    head_w = g.matrix("head.weight", (classes, WIDTH), WIDTH)
    head_b = g.init("head.bias", np.float32(0.1) * g.u((classes,)))
    if not graph:
        return g.arrays
    g.nodes.append(helper.make_node("Gemm", [pooled, head_w, head_b], ["logits"], name="/head/Gemm", transB=1))
    graph = helper.make_graph(
        g.nodes, f"vit_b16_d{depth}",
        [helper.make_tensor_value_info("pixels", TensorProto.FLOAT, ["batch", CHANNELS, IMAGE, IMAGE])],
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", grid * grid + 1, WIDTH]),
         helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", classes])],
        initializer=g.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="wgrt make_vit_onnx.py")
    m.ir_version = 8
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--data-only", action="store_true",
                    help="write only OUT.onnx.data (numpy alone, no onnx package): the same bytes as the full run, "
                         "for a machine that has a copy of OUT.onnx but not python3-onnx")
    a = ap.parse_args()
    if a.depth < 0 or a.classes < 1:
        ap.error("--depth must be >= 0 and --classes >= 1")
    if a.data_only:  # onnx's external-data writer appends each initializer of >= 1 KiB in order, unpadded
        with open(a.out + ".data", "wb") as f:
            for arr in build(a.depth, a.seed, a.classes, graph=False):
                if sys.getsizeof(arr.tobytes()) >= 1024:  # the test onnx applies
                    f.write(arr.astype("<f4").tobytes())
        print(f"wrote {a.out}.data")
        return
    if onnx is None:
        sys.exit("make_vit_onnx.py: error: python3-onnx is missing (apt-get install python3-onnx; scripts/setup.sh)")
    m = build(a.depth, a.seed, a.classes)
    onnx.checker.check_model(m)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    data = os.path.basename(a.out) + ".data"
    if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(a.out)), data)):
        os.remove(os.path.join(os.path.dirname(os.path.abspath(a.out)), data))  # onnx appends to an existing file
    onnx.save_model(m, a.out, save_as_external_data=True, all_tensors_to_one_file=True, location=data,
                    size_threshold=1024)
    params = sum(int(np.prod(t.dims)) for t in m.graph.initializer)
    print(f"wrote {a.out} (+ {data}): depth {a.depth}, {params / 1e6:.1f}M parameters, {len(m.graph.node)} nodes")


if __name__ == "__main__":
    main()
