// The decoder-layer fusions shared by wgrt.linear_q4gsw_fused (linear.cpp) and wgrt.linear_ggml_fused
// (linear_ggml.cpp): both take (x, weight..., bias at 4, norm_weight at 5, eps at 6, residual at 7, act at 8,
// out at 9). Build-time only (the graph builder's thread); the semantics are in linear.cpp's header.
#pragma once
#include <cstdint>
#include <vector>

#include "graph/op_builder.h"
#include "graph/uniform_layout.h"

namespace wgrt::ops {

// The fused op's extra arguments: argument indices, -1 when None.
struct Fusion {
  int norm = -1, res = -1;
  float eps = 0;
  int act = 0;  // 1 silu-GLU, 2 gelu-tanh-GLU
};

// Reads and checks arguments 4..8 for x of dims xd (row length K = xd.back()) and N weight rows (norm_weight f32
// [K], eps >= 0, residual f32 of x's dims with N last, act 0..2 and then N even; a residual with a GLU or with a
// bias is refused). Throws InvalidArgument through b.check.
Fusion fusion_args(OpBuilder& b, const Dims& xd, int64_t N);

struct RmsParams {  // ops/norm/rms_norm.wgsl
  uint32_t rows, D;
  float eps;
  uint32_t pad;
};
WGRT_UNIFORM(RmsParams, rows, D, eps, pad);
struct GluParams {  // ops/elementwise/swiglu.wgsl
  uint32_t n, h, a, b;
};
WGRT_UNIFORM(GluParams, n, h, a, b);

// The norm or the GLU as its own dispatch (where the GEMV does not fuse it, and on the GEMM routes), in route
// `route` (-1 every route). rms: x [M, K] -> xn; glu: y [M, 2H] -> out [M, H] (act 2 gelu-tanh, else silu).
// resize_fusion sizes them at resize time.
struct SideDispatch {
  DispatchRef d;
  UniformRef u;
};
SideDispatch add_side_norm(OpBuilder& b, Binding x, Binding nw, Binding xn, int route);
SideDispatch add_side_glu(OpBuilder& b, int act, Binding y, Binding out, int route);
// At resize, for live x dims xd (checked to end in K) and N weight rows: checks the live residual (x's dims with N
// last), sizes the side dispatches and returns the output dims (N, or N / 2 with a GLU, last).
Dims resize_fusion(ResizeContext& r, const Fusion& fu, const std::vector<SideDispatch>& norms,
                   const std::vector<SideDispatch>& glus, Dims xd, int64_t N);

}  // namespace wgrt::ops
