// The built-in op registry: every op family registers here (one line per family).
#include "graph/op_registry.h"
#include "ops/families.h"

namespace wgrt {

void register_builtin_ops(OpRegistry& r) {
  ops::register_symint_ops(r);
  ops::register_binary_ops(r);
  ops::register_unary_ops(r);
  ops::register_swiglu_ops(r);
  ops::register_linear_ops(r);
  ops::register_linear_ggml_ops(r);
  ops::register_embedding_ggml_ops(r);
  ops::register_norm_ops(r);
  ops::register_embedding_ops(r);
  ops::register_softmax_ops(r);
  ops::register_argmax_ops(r);
  ops::register_reduce_axis_ops(r);
  ops::register_rope_ops(r);
  ops::register_rope_qkv_ops(r);
  ops::register_kv_cache_ops(r);
  ops::register_attention_ops(r);
  ops::register_sdpa_batched_ops(r);
  ops::register_copy_ops(r);
  ops::register_matmul_ops(r);
  ops::register_conv_ops(r);
  ops::register_vision_norm_ops(r);
  ops::register_pool_ops(r);
  ops::register_resample_ops(r);
  ops::register_convert_ops(r);
  ops::register_sdpa_encoder_ops(r);
  ops::register_sample_ops(r);
}

}  // namespace wgrt
