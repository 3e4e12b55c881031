// Convolution with groups == 1 as an implicit-im2col tiled GEMM, per image n:
//   out[n, o, p] = bias[o] + sum_k W[o, k] * X(n, k, p),   p = oh * OW + ow,  k = (c * kh + ky) * kw + kx,
//   X(n, k, p) = x[n, c, oh*sh - ph + ky*dh, ow*sw - pw + kx*dw]  (0 outside the image: zero padding).
// M = O (weight rows, [O, C*kh*kw] contiguous), N = OH*OW, K = C*kh*kw; the im2col matrix is never stored:
// tiles of X are gathered straight from x. Tiles: 64 (o) x 64 (p) outputs per workgroup of 256 invocations
// (4x4 each), K in slices of 32 staged in workgroup memory. Workgroups are linear (tile_n fastest, then
// tile_m, then image) over a folded 1-D grid; out-of-range rows, columns and k are zero-filled / not written.
#include "ops/common/index.wgsl"
#include "ops/conv/conv_params.wgsl"

@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read> w : array<f32>;
@group(0) @binding(2) var<storage, read> bias : array<f32>;
@group(0) @binding(3) var<storage, read_write> out : array<f32>;
@group(0) @binding(4) var<uniform> p : ConvParams;

var<workgroup> As : array<vec4<f32>, 512>;  // [k][m/4]
var<workgroup> Bs : array<vec4<f32>, 512>;  // [k][n/4]

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(num_workgroups) nwg : vec3<u32>,
        @builtin(local_invocation_index) lid : u32) {
  let lw = linear_workgroup(wid, nwg);
  if (lw >= p.total) {
    return;
  }
  let tn = lw % p.tiles_n;
  let rest = lw / p.tiles_n;
  let tm = rest % p.tiles_m;
  let img = rest / p.tiles_m;
  let n0 = tn * 64u;
  let m0 = tm * 64u;
  let P = p.OH * p.OW;
  let khw = p.kh * p.kw;
  let x_base = img * p.C * p.H * p.W;
  let tx = lid % 16u;
  let ty = lid / 16u;
  var acc : array<vec4<f32>, 4>;
  for (var i = 0u; i < 4u; i++) {
    acc[i] = vec4<f32>(0.0);
  }
  // The pixel this invocation gathers for B (fixed over k): column nn = lid % 64 of the tile.
  let nn = lid % 64u;
  let gp = n0 + nn;
  let oh = gp / p.OW;
  let ow = gp % p.OW;
  let iy0 = i32(oh * p.sh) - i32(p.ph);
  let ix0 = i32(ow * p.sw) - i32(p.pw);
  for (var k0 = 0u; k0 < p.K; k0 += 32u) {
    for (var i = 0u; i < 8u; i++) {
      let e = lid + 256u * i;
      let mm = e / 32u;
      let kk = e % 32u;
      let gm = m0 + mm;
      let gk = k0 + kk;
      var v = 0.0;
      if (gm < p.O && gk < p.K) {
        v = w[gm * p.K + gk];
      }
      As[kk * 16u + mm / 4u][mm % 4u] = v;
    }
    for (var i = 0u; i < 8u; i++) {
      let kk = lid / 64u + 4u * i;
      let gk = k0 + kk;
      var v = 0.0;
      if (gp < P && gk < p.K) {
        let c = gk / khw;
        let r = gk % khw;
        let iy = iy0 + i32((r / p.kw) * p.dh);
        let ix = ix0 + i32((r % p.kw) * p.dw);
        if (iy >= 0 && iy < i32(p.H) && ix >= 0 && ix < i32(p.W)) {
          v = x[x_base + (c * p.H + u32(iy)) * p.W + u32(ix)];
        }
      }
      Bs[kk * 16u + nn / 4u][nn % 4u] = v;
    }
    workgroupBarrier();
    let kn = min(32u, p.K - k0);  // a partial last slice (small K, e.g. 3x3 RGB) skips its zero rows
    for (var k = 0u; k < kn; k++) {
      let av = As[k * 16u + ty];
      let bv = Bs[k * 16u + tx];
      acc[0] += av.x * bv;
      acc[1] += av.y * bv;
      acc[2] += av.z * bv;
      acc[3] += av.w * bv;
    }
    workgroupBarrier();
  }
  let out_base = img * p.O * P;
  for (var i = 0u; i < 4u; i++) {
    let gm = m0 + ty * 4u + i;
    if (gm >= p.O) {
      break;
    }
    var bv = 0.0;
    if (p.has_bias != 0u) {
      bv = bias[gm];
    }
    for (var j = 0u; j < 4u; j++) {
      let gn = n0 + tx * 4u + j;
      if (gn < P) {
        out[out_base + gm * P + gn] = acc[i][j] + bv;
      }
    }
  }
}
