// Registration functions of the op families (one per file under src/ops/). all_ops.cpp calls them all.
#pragma once

namespace wgrt {
class OpRegistry;
namespace ops {
void register_symint_ops(OpRegistry& r);       // symint/symint_ops.cpp
void register_binary_ops(OpRegistry& r);       // elementwise/binary.cpp
void register_unary_ops(OpRegistry& r);        // elementwise/unary.cpp
void register_swiglu_ops(OpRegistry& r);       // elementwise/swiglu.cpp
void register_linear_ops(OpRegistry& r);       // linear/linear.cpp
void register_linear_ggml_ops(OpRegistry& r);  // linear/linear_ggml.cpp
void register_norm_ops(OpRegistry& r);         // norm/rms_norm.cpp
void register_embedding_ops(OpRegistry& r);    // embedding/embedding.cpp
void register_embedding_ggml_ops(OpRegistry& r);  // embedding/embedding_ggml.cpp
void register_softmax_ops(OpRegistry& r);      // reduce/softmax.cpp
void register_argmax_ops(OpRegistry& r);       // reduce/argmax.cpp
void register_reduce_axis_ops(OpRegistry& r);  // reduce/reduce_axis.cpp
void register_rope_ops(OpRegistry& r);         // rope/rope.cpp (also wgrt.rope_rows)
void register_rope_qkv_ops(OpRegistry& r);     // rope/rope_qkv.cpp (wgrt.rope_qkv_cache)
void register_kv_cache_ops(OpRegistry& r);     // kv_cache/update_cache.cpp
void register_attention_ops(OpRegistry& r);    // attention/sdpa.cpp
void register_sdpa_batched_ops(OpRegistry& r); // attention/sdpa_batched.cpp
void register_copy_ops(OpRegistry& r);         // copy/copy_ops.cpp
void register_matmul_ops(OpRegistry& r);       // matmul/matmul.cpp
void register_conv_ops(OpRegistry& r);         // conv/conv.cpp
void register_vision_norm_ops(OpRegistry& r);  // norm_vision/vision_norm.cpp
void register_pool_ops(OpRegistry& r);         // pool/pool.cpp
void register_resample_ops(OpRegistry& r);     // resample/resample.cpp
void register_convert_ops(OpRegistry& r);      // convert/convert_ops.cpp
void register_sdpa_encoder_ops(OpRegistry& r); // attention/sdpa_encoder.cpp
void register_sample_ops(OpRegistry& r);       // sampling/sample.cpp
}  // namespace ops
}  // namespace wgrt
