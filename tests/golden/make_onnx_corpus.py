#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/fuzz_onnx.cpp and of the ONNX mutation test (tests/models/onnx_file_test.cpp):
small ONNX models (python3-onnx helper API) covering the importer's paths: initializers and Constant nodes,
symbolic dims, shape subgraphs folded on the host, conv/pool/norm, resize, matmul/softmax, reductions, slicing.
Run: /usr/bin/python3 tests/golden/make_onnx_corpus.py tests/corpus/onnx"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(17)
F = TensorProto.FLOAT


def init(name, shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def save(name, nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="wgrt-corpus")
    with open(os.path.join(out, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())


x4 = helper.make_tensor_value_info("x", F, ["N", 3, "H", "W"])
y = helper.make_tensor_value_info("y", F, None)

save("conv_bn_relu", [
    helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2], group=1),
    helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"], ["n"], epsilon=1e-5),
    helper.make_node("HardSigmoid", ["n"], ["h"], alpha=0.2, beta=0.5),
    helper.make_node("Mul", ["n", "h"], ["r"]),
    helper.make_node("GlobalAveragePool", ["r"], ["y"]),
], [x4], [y], [init("w", (4, 3, 3, 3)), init("b", (4,)), init("s", (4,)), init("bb", (4,)), init("m", (4,)),
              numpy_helper.from_array(np.abs(rng.standard_normal(4)).astype(np.float32) + 0.5, "v")], opset=11)

save("shape_reshape", [
    helper.make_node("Shape", ["x"], ["s"]),
    helper.make_node("Constant", [], ["i0"], value=numpy_helper.from_array(np.array(0, np.int64))),
    helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),
    helper.make_node("Unsqueeze", ["n"], ["nu"], axes=[0]),
    helper.make_node("Constant", [], ["m1"], value_ints=[-1]),
    helper.make_node("Concat", ["nu", "m1"], ["shape"], axis=0),
    helper.make_node("Reshape", ["x", "shape"], ["r"]),
    helper.make_node("Softmax", ["r"], ["y"], axis=1),
], [x4], [y], opset=11)

save("resize_transpose_convt", [
    helper.make_node("Resize", ["x", "roi", "sc"], ["u"], mode="nearest", coordinate_transformation_mode="asymmetric",
                     nearest_mode="floor"),
    helper.make_node("ConvTranspose", ["u", "w"], ["t"], strides=[2, 2], kernel_shape=[2, 2]),
    helper.make_node("Transpose", ["t"], ["y"], perm=[0, 2, 3, 1]),
], [x4], [y], [numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
               numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "sc"), init("w", (3, 2, 2, 2))], opset=11)

xs = helper.make_tensor_value_info("x", F, [1, "T", 8])
save("attention_layernorm", [
    helper.make_node("MatMul", ["x", "wq"], ["q"]),
    helper.make_node("Transpose", ["q"], ["qt"], perm=[0, 2, 1]),
    helper.make_node("MatMul", ["q", "qt"], ["a"]),
    helper.make_node("Softmax", ["a"], ["p"], axis=2),
    helper.make_node("MatMul", ["p", "x"], ["o"]),
    helper.make_node("ReduceMean", ["o"], ["mu"], axes=[-1]),
    helper.make_node("Sub", ["o", "mu"], ["d"]),
    helper.make_node("Pow", ["d", "two"], ["d2"]),
    helper.make_node("ReduceMean", ["d2"], ["var"], axes=[-1]),
    helper.make_node("Add", ["var", "eps"], ["ve"]),
    helper.make_node("Sqrt", ["ve"], ["sd"]),
    helper.make_node("Div", ["d", "sd"], ["y"]),
], [xs], [y], [init("wq", (8, 8)), numpy_helper.from_array(np.array(2, np.float32), "two"),
               numpy_helper.from_array(np.array(1e-5, np.float32), "eps")], opset=11)

x2 = helper.make_tensor_value_info("x", F, [2, "L"])
save("slice_split_pad_gemm", [
    helper.make_node("Slice", ["x", "st", "en", "ax"], ["s"]),
    helper.make_node("Split", ["s"], ["a", "b"], axis=1),
    helper.make_node("Concat", ["b", "a"], ["c"], axis=1),
    helper.make_node("Pad", ["c", "pads"], ["p"], mode="constant"),
    helper.make_node("Gemm", ["p", "gw", "gb"], ["g"], transB=1, alpha=0.5),
    helper.make_node("Clip", ["g", "lo", "hi"], ["y"]),
], [x2], [y], [numpy_helper.from_array(np.array([0], np.int64), "st"), numpy_helper.from_array(np.array([4], np.int64), "en"),
               numpy_helper.from_array(np.array([1], np.int64), "ax"),
               numpy_helper.from_array(np.array([0, 1, 0, 1], np.int64), "pads"), init("gw", (3, 6)), init("gb", (3,)),
               numpy_helper.from_array(np.array(-1, np.float32), "lo"), numpy_helper.from_array(np.array(1, np.float32), "hi")])

save("pool_reduce", [
    helper.make_node("MaxPool", ["x"], ["m"], kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("AveragePool", ["m"], ["a"], kernel_shape=[3, 2], strides=[1, 1], pads=[1, 0, 1, 0], count_include_pad=0),
    helper.make_node("ReduceSum", ["a", "axes"], ["r"], keepdims=0),
    helper.make_node("Exp", ["r"], ["e"]),
    helper.make_node("Erf", ["e"], ["y"]),
], [x4], [y], [numpy_helper.from_array(np.array([1, 3], np.int64), "axes")])

# Two decomposed LayerNorms as exporters write them (fused into one norm each by the importer,
# src/models/onnx_graph/fuse_layernorm.h): Pow(d, 2) with gamma/beta of the normalised dims, then Mul(d, d) with
# eps on the left and gamma/beta of dims [1, 1, C], around a MatMul; a third ReduceMean chain over axis 1
# (not the trailing axis) stays unfused.
xl = helper.make_tensor_value_info("x", F, ["N", "T", 16])
save("layernorm_patterns", [
    helper.make_node("ReduceMean", ["x"], ["mu"], axes=[-1]),
    helper.make_node("Sub", ["x", "mu"], ["d"]),
    helper.make_node("Pow", ["d", "two"], ["d2"]),
    helper.make_node("ReduceMean", ["d2"], ["var"], axes=[-1]),
    helper.make_node("Add", ["var", "eps"], ["ve"]),
    helper.make_node("Sqrt", ["ve"], ["sd"]),
    helper.make_node("Div", ["d", "sd"], ["n"]),
    helper.make_node("Mul", ["n", "g"], ["ng"]),
    helper.make_node("Add", ["ng", "b"], ["ln1"]),
    helper.make_node("MatMul", ["ln1", "w"], ["h"]),
    helper.make_node("ReduceMean", ["h"], ["mu2"], axes=[2]),
    helper.make_node("Sub", ["h", "mu2"], ["e"]),
    helper.make_node("Mul", ["e", "e"], ["e2"]),
    helper.make_node("ReduceMean", ["e2"], ["var2"], axes=[2]),
    helper.make_node("Add", ["eps", "var2"], ["ve2"]),
    helper.make_node("Sqrt", ["ve2"], ["sd2"]),
    helper.make_node("Div", ["e", "sd2"], ["n2"]),
    helper.make_node("Mul", ["g2", "n2"], ["ng2"]),
    helper.make_node("Add", ["b2", "ng2"], ["ln2"]),
    helper.make_node("ReduceMean", ["ln2"], ["mu3"], axes=[1]),
    helper.make_node("Sub", ["ln2", "mu3"], ["f"]),
    helper.make_node("Mul", ["f", "f"], ["f2"]),
    helper.make_node("ReduceMean", ["f2"], ["var3"], axes=[1]),
    helper.make_node("Add", ["var3", "eps"], ["ve3"]),
    helper.make_node("Sqrt", ["ve3"], ["sd3"]),
    helper.make_node("Div", ["f", "sd3"], ["y"]),
], [xl], [y], [numpy_helper.from_array(np.array(2, np.float32), "two"), numpy_helper.from_array(np.array(1e-5, np.float32), "eps"),
               init("g", (16,)), init("b", (16,)), init("w", (16, 16)), init("g2", (1, 1, 16)), init("b2", (1, 1, 16))], opset=13)

# Opset 18 forms of claimed operators: ReduceMean/ReduceMax with axes as an input, Split num_outputs (uneven:
# 5 channels into 3 + 2), Pad with an axes input, Resize with axes and antialias = 0, and a decomposed LayerNorm
# whose ReduceMeans take their axes as an input (fused by the importer).
x18 = helper.make_tensor_value_info("x", F, ["N", 5, "H", "W"])
i64 = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
save("opset18_forms", [
    helper.make_node("ReduceMean", ["x", "ax1"], ["m"], keepdims=1),
    helper.make_node("Sub", ["x", "m"], ["c"]),
    helper.make_node("Split", ["c"], ["a", "b"], axis=1, num_outputs=2),
    helper.make_node("Pad", ["a", "pads", "pv", "ax23"], ["y"], mode="constant"),
    helper.make_node("Resize", ["b", "", "sc"], ["r"], mode="nearest", coordinate_transformation_mode="asymmetric",
                     nearest_mode="floor", axes=[2, 3], antialias=0),
    helper.make_node("ReduceMax", ["r", "ax1"], ["z"], keepdims=1),
    helper.make_node("ReduceMean", ["x", "axl"], ["mu"]),
    helper.make_node("Sub", ["x", "mu"], ["d"]),
    helper.make_node("Mul", ["d", "d"], ["d2"]),
    helper.make_node("ReduceMean", ["d2", "axl"], ["var"]),
    helper.make_node("Add", ["var", "eps"], ["ve"]),
    helper.make_node("Sqrt", ["ve"], ["sd"]),
    helper.make_node("Div", ["d", "sd"], ["w"]),
], [x18], [y, helper.make_tensor_value_info("z", F, None), helper.make_tensor_value_info("w", F, None)],
    [i64("ax1", [1]), i64("axl", [-1]), i64("pads", [1, 2, 0, 1]), i64("ax23", [2, 3]),
     numpy_helper.from_array(np.array(0.5, np.float32), "pv"), numpy_helper.from_array(np.array([2, 2], np.float32), "sc"),
     numpy_helper.from_array(np.array(1e-5, np.float32), "eps")], opset=18)

# Exported-transformer node patterns (src/models/onnx_graph/fuse_patterns.h): MatMul + bias Add (bias on the left,
# then a [1, 1, C] bias), erf GELU in torch's order (Div by sqrt 2) and in Hugging Face's (Mul by 1 / sqrt 2, the
# 0.5 first); then two that must stay unfused: a bias of rank 4 on a rank-3 product (the Add broadcasts the
# output up a rank) and a GELU-shaped chain whose last factor is 0.6, not 0.5.
xp = helper.make_tensor_value_info("x", F, ["N", "T", 12])
f32 = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
save("linear_gelu_patterns", [
    helper.make_node("MatMul", ["x", "w1"], ["h1"]),
    helper.make_node("Add", ["b1", "h1"], ["a1"]),
    helper.make_node("Div", ["a1", "sqrt2"], ["d1"]),
    helper.make_node("Erf", ["d1"], ["e1"]),
    helper.make_node("Add", ["e1", "one"], ["p1"]),
    helper.make_node("Mul", ["a1", "p1"], ["m1"]),
    helper.make_node("Mul", ["m1", "half"], ["g1"]),
    helper.make_node("MatMul", ["g1", "w2"], ["h2"]),
    helper.make_node("Add", ["h2", "b2"], ["a2"]),
    helper.make_node("Mul", ["a2", "half"], ["hx"]),
    helper.make_node("Mul", ["isqrt2", "a2"], ["d2"]),
    helper.make_node("Erf", ["d2"], ["e2"]),
    helper.make_node("Add", ["one", "e2"], ["p2"]),
    helper.make_node("Mul", ["hx", "p2"], ["g2"]),
    helper.make_node("MatMul", ["g2", "w3"], ["h3"]),
    helper.make_node("Add", ["h3", "b3"], ["a3"]),
    helper.make_node("Div", ["a3", "sqrt2"], ["d3"]),
    helper.make_node("Erf", ["d3"], ["e3"]),
    helper.make_node("Add", ["e3", "one"], ["p3"]),
    helper.make_node("Mul", ["a3", "p3"], ["m3"]),
    helper.make_node("Mul", ["m3", "c06"], ["y"]),
], [xp], [y], [init("w1", (12, 20)), init("b1", (20,)), init("w2", (20, 12)), init("b2", (1, 1, 12)),
               init("w3", (12, 12)), init("b3", (1, 1, 1, 12)), f32("sqrt2", np.sqrt(2.0)), f32("isqrt2", np.sqrt(0.5)),
               f32("one", 1.0), f32("half", 0.5), f32("c06", 0.6)], opset=13)
