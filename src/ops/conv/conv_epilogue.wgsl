// The fused epilogue of the convolution kernels (conv_epilogue.h): up to 10 elementwise steps applied to each
// output after the bias, fixed per pipeline by override constants (step k: opcode EPI_OPk, constants EPI_Ak,
// EPI_Bk; opcode 0 ends the program) so that the compiler folds the program into the store. Defines the GEMM
// bodies' store hook gemm_epilogue (ops/linear/gemm_params.wgsl); the direct kernels call it too.
// Opcodes (keep in sync with EpilogueOp in conv_epilogue.h): 1 v*a, 2 v+a, 3 v/a, 4 a/v, 5 a-v,
// 6 min(max(v, a), b), 7 max(v, 0), 8 sigmoid(v), 9 clamp(a*v + b, 0, 1), 10 s = v (save), 11 v*s, 12 tanh(v).
#include "ops/common/sigmoid.wgsl"

override EPI_OP0 : u32 = 0u;
override EPI_A0 : f32 = 0.0;
override EPI_B0 : f32 = 0.0;
override EPI_OP1 : u32 = 0u;
override EPI_A1 : f32 = 0.0;
override EPI_B1 : f32 = 0.0;
override EPI_OP2 : u32 = 0u;
override EPI_A2 : f32 = 0.0;
override EPI_B2 : f32 = 0.0;
override EPI_OP3 : u32 = 0u;
override EPI_A3 : f32 = 0.0;
override EPI_B3 : f32 = 0.0;
override EPI_OP4 : u32 = 0u;
override EPI_A4 : f32 = 0.0;
override EPI_B4 : f32 = 0.0;
override EPI_OP5 : u32 = 0u;
override EPI_A5 : f32 = 0.0;
override EPI_B5 : f32 = 0.0;
override EPI_OP6 : u32 = 0u;
override EPI_A6 : f32 = 0.0;
override EPI_B6 : f32 = 0.0;
override EPI_OP7 : u32 = 0u;
override EPI_A7 : f32 = 0.0;
override EPI_B7 : f32 = 0.0;
override EPI_OP8 : u32 = 0u;
override EPI_A8 : f32 = 0.0;
override EPI_B8 : f32 = 0.0;
override EPI_OP9 : u32 = 0u;
override EPI_A9 : f32 = 0.0;
override EPI_B9 : f32 = 0.0;

fn epi_step(v : f32, s : ptr<function, f32>, op : u32, a : f32, b : f32) -> f32 {
  switch (op) {
    case 1u: { return v * a; }
    case 2u: { return v + a; }
    case 3u: { return v / a; }
    case 4u: { return a / v; }
    case 5u: { return a - v; }
    case 6u: { return min(max(v, a), b); }
    case 7u: { return max(v, 0.0); }
    case 8u: { return sigmoid(v); }
    case 9u: { return clamp(a * v + b, 0.0, 1.0); }
    case 10u: {
      *s = v;
      return v;
    }
    case 11u: { return v * *s; }
    case 12u: { return tanh(v); }
    default: { return v; }
  }
}

fn gemm_epilogue(v : f32) -> f32 {
  if (EPI_OP0 == 0u) {
    return v;
  }
  var s = 0.0;
  var r = v;
  r = epi_step(r, &s, EPI_OP0, EPI_A0, EPI_B0);
  r = epi_step(r, &s, EPI_OP1, EPI_A1, EPI_B1);
  r = epi_step(r, &s, EPI_OP2, EPI_A2, EPI_B2);
  r = epi_step(r, &s, EPI_OP3, EPI_A3, EPI_B3);
  r = epi_step(r, &s, EPI_OP4, EPI_A4, EPI_B4);
  r = epi_step(r, &s, EPI_OP5, EPI_A5, EPI_B5);
  r = epi_step(r, &s, EPI_OP6, EPI_A6, EPI_B6);
  r = epi_step(r, &s, EPI_OP7, EPI_A7, EPI_B7);
  r = epi_step(r, &s, EPI_OP8, EPI_A8, EPI_B8);
  r = epi_step(r, &s, EPI_OP9, EPI_A9, EPI_B9);
  return r;
}
