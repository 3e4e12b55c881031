// The body shared by the layout-aware block GEMV kernels (gemv_kq.wgsl: the plain and fused linear; gemv_kq_rope.wgsl:
// the q/k/v linear with RoPE and the KV-cache write as its epilogue): the overrides, the bindings both declare
// alike (x 0, w 1, p 4, nw 5, w4 9; gemv_kq_i8.wgsl's 7 and 8), the chunk decoders and kq_partials. gemv_kq.wgsl's
// header describes the layout, the chunks and the int8 route.
#include "ops/common/index.wgsl"
#include "ops/linear/gemv_ggml_params.wgsl"

@group(0) @binding(0) var<storage, read> x : array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> w : array<u32>;
@group(0) @binding(4) var<uniform> p : Params;
// NORM: the RMSNorm weight [K] (else any tensor); gemv_kq_rope.wgsl with p.has_bias: the norm-and-bias vector.
@group(0) @binding(5) var<storage, read> nw : array<vec4<f32>>;
// Binding 9: w again, as vec4 words (the same buffer range as binding 1). Q4_K and Q5_K blocks (144 and 176 bytes)
// are 16-byte aligned, so the int8 chunks (chunk_k45_i8) load a block's header and 32 code bytes as 3 vec4s instead
// of 12 scalar words, which the lanes of a SIMD group spread over as many memory segments (H200 run 26: 1B
// Q4_K_M decode 1.04x). The f32 chunks keep the scalar loads (lavapipe measured their vec4 form 1.7x slower).
@group(0) @binding(9) var<storage, read> w4 : array<vec4<u32>>;

override WTYPE : u32 = 12u;
override WTYPE2 : u32 = WTYPE;  // rows from p.n_split (workgroups from p.wg_split); WTYPE: one type
override MB : u32 = 1u;   // rows of x per grid layer, 1..8
override RPT : u32 = 1u;  // rows of W per invocation, 1..16 (16: STREAM only); MB * RPT <= 16
override XQ : u32 = 0u;   // 1: int8 x from a quantize pass, 2: int8 x staged here (gemv_kq_i8.wgsl)
override KCH : u32 = 0u;  // chunks per k lane where K holds exactly KCH * TK chunks (chunks()); 0: any K
override TK : u32 = 32u;  // k lanes, 16 or 32 (with MB * RPT <= 16 the row sums take one invocation each)
const RMAX = 16u;  // the most rows of W per invocation
// 1: with one row of x (MB 1) and f32 x, each chunk loads its x once and streams the RPT rows of W past it
// (chunk_k45_stream, chunk_q6k_stream, chunk_b32_stream; the policy's ggml_gemv_stream: CPU adapters).
override STREAM : u32 = 0u;
const TR = 8u;
override PAD : u32 = 1u - min(MB * RPT / 9u, 1u);  // row padding of the reduction buffer (bank conflicts)
                                                     // while MB * RPT <= 8 (16 KiB)

var<workgroup> part : array<f32, MB * RPT * TR * (TK + PAD)>;  // [MB][RPT * TR][TK + PAD]
var<private> xoff : array<u32, 8>;   // vec4 index of the layer's row m of x (clamped to M - 1)
var<private> rbase : array<u32, RMAX>;  // byte offset of row i of the invocation's rows of W
var<private> acc : array<f32, 16>;   // [RPT][MB]: acc[MB i + m]
var<private> m_row : u32;            // the row of x / out the fusion hooks work on
var<private> xinv : array<f32, 8>;   // NORM: 1 / rms of the layer's row m of x

#include "ops/linear/gemv_fuse_norm.wgsl"
#include "ops/linear/gemv_kq_i8.wgsl"

// The u32 at byte offset o (o even: 2-byte aligned formats take the upper half of one word and the lower of
// the next).
fn word_at(o : u32) -> u32 {
  let i = o >> 2u;
  let a = w[i];
  if ((o & 2u) == 0u) {
    return a;
  }
  return (a >> 16u) | (w[i + 1u] << 16u);
}
// Q8_0's block at byte offset o (o even; 34-byte blocks alternate between 4-byte and 2-byte alignment): its f16
// scale d and its 32 codes as 8 u32 words (byte 0 first), from 9 aligned word loads and no branch, so the lanes
// of a CPU adapter's SIMD group (whose blocks alternate in alignment) do not diverge. o % 4 == 2: d is the upper
// half of word o / 4 and the codes are the next 8 words; o % 4 == 0: d is the lower half and each code word
// takes the upper half of one word and the lower half of the next.
struct Q8_0Words {
  d : f32,
  q : array<u32, 8>,
}
fn q8_0_block(o : u32) -> Q8_0Words {
  let i = o >> 2u;
  let al = (o & 2u) != 0u;
  var a = w[i];
  var r : Q8_0Words;
  r.d = unpack2x16float(select(a, a >> 16u, al)).x;
  for (var k = 0u; k < 8u; k++) {
    let b = w[i + 1u + k];
    r.q[k] = select((a >> 16u) | (b << 16u), b, al);
    a = b;
  }
  return r;
}
// Q5_0's block at byte offset o (o even; 22-byte blocks alternate between 4-byte and 2-byte alignment): its f16
// scale d, its 32 high bits qh and its 16 code bytes as 4 u32 words, from 6 aligned word loads and no branch (as
// q8_0_block: word_at's branch splits a SIMD group whose lanes take consecutive blocks). o % 4 == 2: d is the
// upper half of word o / 4, qh the next word, the codes the 4 after it; o % 4 == 0: d is the lower half, and qh
// and each code word take the upper half of one word and the lower half of the next. The 6 words lie inside the
// buffer: the block's last byte is in word o / 4 + 5.
struct Q5_0Words {
  d : f32,
  qh : u32,
  q : vec4<u32>,
}
fn q5_0_block(o : u32) -> Q5_0Words {
  let i = o >> 2u;
  let al = (o & 2u) != 0u;
  let a = w[i];
  let lo = vec4<u32>(w[i + 1u], w[i + 2u], w[i + 3u], w[i + 4u]);
  let hi = vec4<u32>(lo.yzw, w[i + 5u]);
  var r : Q5_0Words;
  r.d = unpack2x16float(select(a, a >> 16u, al)).x;
  r.qh = select((a >> 16u) | (lo.x << 16u), lo.x, al);
  r.q = select((lo >> vec4<u32>(16u)) | (hi << vec4<u32>(16u)), hi, al);
  return r;
}
fn f16_at(o : u32) -> f32 {
  return unpack2x16float((w[o >> 2u] >> ((o & 2u) * 8u)) & 0xffffu).x;
}
// The 4-bit-code 32-element blocks (Q5_0 where q5, else Q4_1: f16 d, f16 m, u8 qs[16]; 20 bytes, one alignment per
// row) at byte offset o, for chunk_b32 and chunk_b32_i8: weight = d * code + mn (Q5_0: code 0..31 with its 5th bit
// from qh, mn = -16 d; Q4_1: code 0..15, qh 0, mn = m) and the 16 code bytes as 4 u32 words.
struct Nib32Words {
  d : f32,
  mn : f32,
  qh : u32,
  q : vec4<u32>,
}
fn nib32_block(q5 : bool, o : u32) -> Nib32Words {
  var r : Nib32Words;
  if (q5) {
    let b = q5_0_block(o);
    r.d = b.d;
    r.mn = -16.0 * b.d;
    r.qh = b.qh;
    r.q = b.q;
  } else {
    r.d = f16_at(o);
    r.mn = f16_at(o + 2u);
    r.qh = 0u;
    r.q = vec4<u32>(word_at(o + 4u), word_at(o + 8u), word_at(o + 12u), word_at(o + 16u));
  }
  return r;
}
// The 4 bytes of u as vec4 (byte 0 first), and as sign-extended i8.
fn bytes4(u : u32) -> vec4<u32> {
  return (vec4<u32>(u) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(0xffu);
}
fn sbytes4(u : u32) -> vec4<f32> {
  return vec4<f32>((vec4<i32>(bitcast<i32>(u)) << vec4<u32>(24u, 16u, 8u, 0u)) >> vec4<u32>(24u));
}

// acc[MB i + m] += dot(wv[i], x[m][4 * i4 .. 4 * i4 + 3]) for the RPT rows i and the layer's MB rows m (i4: vec4
// index within the row): one x load serves the RPT rows.
fn fma_rows(wv : array<vec4<f32>, RMAX>, i4 : u32) {
  var nv = vec4<f32>(1.0);
  if (NORM != 0u) {
    nv = nw[i4];
  }
  for (var m = 0u; m < MB; m++) {
    var xv = x[xoff[m] + i4];
    if (NORM != 0u) {
      xv *= nv;
    }
    for (var i = 0u; i < RPT; i++) {
      acc[MB * i + m] += dot(wv[i], xv);
    }
  }
}

// Q4_K / Q5_K 6-bit scale and min of sub-block sb (0..7) from the 12 scale bytes in the words of s:
// (d * scale, dmin * min) with dd = (d, dmin).
fn k4_scale_min(s : vec3<u32>, sb : u32, dd : vec2<f32>) -> vec2<f32> {
  // Byte i of the 12 is byte i % 4 of word i / 4 (no private array: a dynamic index would spill it).
  let j = sb & 3u;
  let b0 = (s.x >> (8u * j)) & 255u;  // scales[j]
  let b1 = (s.y >> (8u * j)) & 255u;  // scales[4 + j]
  let b2 = (s.z >> (8u * j)) & 255u;  // scales[8 + j]
  var sc : u32;
  var mn : u32;
  if (sb < 4u) {
    sc = b0 & 63u;
    mn = b1 & 63u;
  } else {
    sc = (b2 & 15u) | ((b0 >> 6u) << 4u);
    mn = (b2 >> 4u) | ((b1 >> 6u) << 4u);
  }
  return vec2<f32>(dd.x * f32(sc), dd.y * f32(mn));
}

// Q4_K (f16 d, f16 dmin, u8 scales[12], u8 qs[128]; 144 bytes, so blocks are 16-byte aligned) and Q5_K (the
// same header, u8 qh[32], u8 qs[128]; 176 bytes): chunk c (0..3) of block `boff` (byte offset within a row) =
// sub-blocks 2c (low nibbles of qs[32c .. 32c + 31]) and 2c + 1 (high nibbles), elements 64c .. 64c + 63 of the
// block, whose first vec4 of x is x4; Q5_K's 5th bit of element l of sub-block sb is bit sb of qh[l].
fn chunk_k45(wt : u32, boff : u32, c : u32, x4 : u32) {
  let q5 = wt == 13u;
  var lo : array<vec2<f32>, RMAX>;
  var hi : array<vec2<f32>, RMAX>;
  var wi : array<u32, RMAX>;
  for (var i = 0u; i < RPT; i++) {
    wi[i] = (rbase[i] + boff) >> 2u;
    let dd = unpack2x16float(w[wi[i]]);
    let s = vec3<u32>(w[wi[i] + 1u], w[wi[i] + 2u], w[wi[i] + 3u]);
    lo[i] = k4_scale_min(s, 2u * c, dd);
    hi[i] = k4_scale_min(s, 2u * c + 1u, dd);
  }
  let qs = select(4u, 12u, q5) + 8u * c;
  // The codes' dot products with x are summed per sub-block and scaled once at the end: sum_l (s q_l - m) x_l =
  // s * dot(q, x) - m * sum(x), where sum(x) is shared by the RPT rows.
  var dl : array<f32, 16>;  // [RPT][MB]: dot(codes of sub-block 2c, x), at MB i + m
  var dh : array<f32, 16>;  // the same for sub-block 2c + 1
  var sx : array<vec4<f32>, 8>;  // per row m of x: its sum over sub-block 2c (xy) and 2c + 1 (zw), vec2 partials
  for (var k = 0u; k < 8u; k++) {
    var wl : array<vec4<f32>, RMAX>;
    var wh : array<vec4<f32>, RMAX>;
    for (var i = 0u; i < RPT; i++) {
      let q = w[wi[i] + qs + k];
      var ql = q & 0x0F0F0F0Fu;
      var qhh = (q >> 4u) & 0x0F0F0F0Fu;
      if (q5) {
        let h = w[wi[i] + 4u + k] >> (2u * c);
        ql |= (h & 0x01010101u) << 4u;
        qhh |= (h & 0x02020202u) << 3u;
      }
      wl[i] = vec4<f32>(bytes4(ql));
      wh[i] = vec4<f32>(bytes4(qhh));
    }
    var nl = vec4<f32>(1.0);
    var nh = vec4<f32>(1.0);
    if (NORM != 0u) {
      nl = nw[x4 + k];
      nh = nw[x4 + 8u + k];
    }
    for (var m = 0u; m < MB; m++) {
      let xl = x[xoff[m] + x4 + k] * nl;
      let xh = x[xoff[m] + x4 + 8u + k] * nh;
      sx[m] += vec4<f32>(xl.xy + xl.zw, xh.xy + xh.zw);
      for (var i = 0u; i < RPT; i++) {
        dl[MB * i + m] += dot(wl[i], xl);
        dh[MB * i + m] += dot(wh[i], xh);
      }
    }
  }
  for (var m = 0u; m < MB; m++) {
    let sl = sx[m].x + sx[m].y;
    let sh = sx[m].z + sx[m].w;
    for (var i = 0u; i < RPT; i++) {
      acc[MB * i + m] += lo[i].x * dl[MB * i + m] - lo[i].y * sl + hi[i].x * dh[MB * i + m] - hi[i].y * sh;
    }
  }
}

// Q6_K (u8 ql[128], u8 qh[64], i8 scales[16], f16 d; 210 bytes padded to 212 on the GPU, so every block and
// every word of it is 4-byte aligned and loads as one word: lavapipe K 2048 x N 8192, 7.5 -> 5.5 ms): chunk
// c = (h, lh) = (c / 2, c % 2) takes l = 16 lh .. 16 lh + 15 of half h for the 4 runs r: element 128 h + 32 r + l
// has low bits ql[64 h + l + 32 (r & 1)] >> 4 (r >> 1), high bits qh[32 h + l] >> 2 r, scale scales[8 h + 2 r + lh].
fn chunk_q6k(boff : u32, c : u32, x4blk : u32) {
  let h = c / 2u;
  let lh = c % 2u;
  var ds : array<vec4<f32>, RMAX>;
  var l0 : array<u32, RMAX>;
  for (var i = 0u; i < RPT; i++) {
    let base = rbase[i] + boff;
    let d = f16_at(base + 208u);
    let sa = sbytes4(w[(base + 192u + 8u * h) >> 2u]);       // scales[8h + 0..3]
    let sb = sbytes4(w[(base + 192u + 8u * h + 4u) >> 2u]);  // scales[8h + 4..7]
    ds[i] = d * select(vec4<f32>(sa.x, sa.z, sb.x, sb.z), vec4<f32>(sa.y, sa.w, sb.y, sb.w), lh == 1u);
    l0[i] = base + 64u * h + 16u * lh;
  }
  let x4 = x4blk + 32u * h + 4u * lh;  // vec4 index of element 128 h + 16 lh
  for (var k = 0u; k < 4u; k++) {
    var w0 : array<vec4<f32>, RMAX>;
    var w1 : array<vec4<f32>, RMAX>;
    var w2 : array<vec4<f32>, RMAX>;
    var w3 : array<vec4<f32>, RMAX>;
    for (var i = 0u; i < RPT; i++) {
      let a = w[(l0[i] + 4u * k) >> 2u];
      let b = w[(l0[i] + 32u + 4u * k) >> 2u];
      let hq = w[(l0[i] + 128u - 32u * h + 4u * k) >> 2u];  // qh[32 h + 16 lh + 4 k ..]
      let q0 = (a & 0x0F0F0F0Fu) | ((hq << 4u) & 0x30303030u);
      let q1 = (b & 0x0F0F0F0Fu) | ((hq << 2u) & 0x30303030u);
      let q2 = ((a >> 4u) & 0x0F0F0F0Fu) | (hq & 0x30303030u);
      let q3 = ((b >> 4u) & 0x0F0F0F0Fu) | ((hq >> 2u) & 0x30303030u);
      w0[i] = (vec4<f32>(bytes4(q0)) - 32.0) * ds[i].x;
      w1[i] = (vec4<f32>(bytes4(q1)) - 32.0) * ds[i].y;
      w2[i] = (vec4<f32>(bytes4(q2)) - 32.0) * ds[i].z;
      w3[i] = (vec4<f32>(bytes4(q3)) - 32.0) * ds[i].w;
    }
    fma_rows(w0, x4 + k);
    fma_rows(w1, x4 + 8u + k);
    fma_rows(w2, x4 + 16u + k);
    fma_rows(w3, x4 + 24u + k);
  }
}

// Q8_0 (f16 d, i8 qs[32]; 34 bytes), Q5_0 (f16 d, u32 qh, u8 qs[16]; 22 bytes), Q4_1 (f16 d, f16 m, u8 qs[16];
// 20 bytes): one whole block at byte boff of the rows, first vec4 of x x4. Q5_0 / Q4_1 element j < 16 is the
// low nibble of qs[j], j >= 16 the high nibble of qs[j - 16]; Q5_0's 5th bit is bit j of qh.
fn chunk_b32(wt : u32, boff : u32, x4 : u32) {
  var d : array<f32, RMAX>;
  var mn : array<f32, RMAX>;
  var qh : array<u32, RMAX>;
  let q5 = wt == 6u;
  if (wt == 8u) {
    // q8_0_block's funnel, one code word per step (the 8 words of every row held at once cost registers at MB 8).
    var wi : array<u32, RMAX>;
    var al : array<bool, RMAX>;
    var a : array<u32, RMAX>;
    for (var i = 0u; i < RPT; i++) {
      let o = rbase[i] + boff;
      wi[i] = o >> 2u;
      al[i] = (o & 2u) != 0u;
      a[i] = w[wi[i]];
      d[i] = unpack2x16float(select(a[i], a[i] >> 16u, al[i])).x;
    }
    for (var k = 0u; k < 8u; k++) {
      var wv : array<vec4<f32>, RMAX>;
      for (var i = 0u; i < RPT; i++) {
        let b = w[wi[i] + 1u + k];
        wv[i] = sbytes4(select((a[i] >> 16u) | (b << 16u), b, al[i])) * d[i];
        a[i] = b;
      }
      fma_rows(wv, x4 + k);
    }
    return;
  }
  var qw : array<vec4<u32>, RMAX>;  // the code words (nib32_block)
  for (var i = 0u; i < RPT; i++) {
    let blk = nib32_block(q5, rbase[i] + boff);
    d[i] = blk.d;
    mn[i] = blk.mn;
    qh[i] = blk.qh;
    qw[i] = blk.q;
  }
  for (var k = 0u; k < 4u; k++) {
    var wl : array<vec4<f32>, RMAX>;
    var wh : array<vec4<f32>, RMAX>;
    for (var i = 0u; i < RPT; i++) {
      let q = qw[i][k];
      let hl = ((vec4<u32>(qh[i]) >> (vec4<u32>(0u, 1u, 2u, 3u) + 4u * k)) & vec4<u32>(1u)) << vec4<u32>(4u);
      let hh = ((vec4<u32>(qh[i]) >> (vec4<u32>(16u, 17u, 18u, 19u) + 4u * k)) & vec4<u32>(1u)) << vec4<u32>(4u);
      wl[i] = vec4<f32>(bytes4(q & 0x0F0F0F0Fu) | hl) * d[i] + mn[i];
      wh[i] = vec4<f32>(bytes4((q >> 4u) & 0x0F0F0F0Fu) | hh) * d[i] + mn[i];
    }
    fma_rows(wl, x4 + k);
    fma_rows(wh, x4 + 4u + k);
  }
}

// The streamed chunks (STREAM 1, MB 1): the chunk's x (times the norm weight under NORM) is loaded once into private
// memory, then each of the RPT rows of W is decoded and dotted against it in turn, so that only one row's codes
// and scales are live at a time. Lavapipe keeps the private x in SIMD registers or its stack, where each load is
// one vector load for all lanes of a SIMD group, while a storage load is scalarized per lane; with the rows
// streamed, 16 rows per invocation do not spill (lavapipe, with 16 k lanes: Llama-3.2-1B Q4_K_M decode about 1.7x
// the speed of the interleaved chunks at 4 rows, Q6_K at 2; BENCHMARKS.md).
fn x_stream(i4 : u32) -> vec4<f32> {
  var v = x[xoff[0] + i4];
  if (NORM != 0u) {
    v *= nw[i4];
  }
  return v;
}

// chunk_k45's chunk (sub-blocks 2c and 2c + 1 of the block at boff, first vec4 of x x4), streamed.
fn chunk_k45_stream(wt : u32, boff : u32, c : u32, x4 : u32) {
  let q5 = wt == 13u;
  var xl : array<vec4<f32>, 8>;
  var xh : array<vec4<f32>, 8>;
  var s4 = vec4<f32>(0.0);
  for (var k = 0u; k < 8u; k++) {
    xl[k] = x_stream(x4 + k);
    xh[k] = x_stream(x4 + 8u + k);
    s4 += vec4<f32>(xl[k].xy + xl[k].zw, xh[k].xy + xh[k].zw);
  }
  let sl = s4.x + s4.y;  // sum of x over sub-block 2c
  let sh = s4.z + s4.w;  // and over 2c + 1
  let qs = select(4u, 12u, q5) + 8u * c;
  for (var i = 0u; i < RPT; i++) {
    // The header (d, dmin, 12 scale bytes) and the chunk's 8 code words as 3 vec4 loads (binding 9; the blocks
    // are 16-byte aligned): lavapipe, K 2048 x N 8192 Q4_K, median 6.8 against 7.8 ms for 12 word loads.
    let wi = (rbase[i] + boff) >> 2u;
    let hd = w4[wi >> 2u];
    let cq = array<vec4<u32>, 2>(w4[(wi + qs) >> 2u], w4[((wi + qs) >> 2u) + 1u]);
    let dd = unpack2x16float(hd.x);
    let lo = k4_scale_min(hd.yzw, 2u * c, dd);
    let hi = k4_scale_min(hd.yzw, 2u * c + 1u, dd);
    var dl = 0.0;
    var dh = 0.0;
    for (var k = 0u; k < 8u; k++) {
      let q = cq[k / 4u][k % 4u];
      var ql = q & 0x0F0F0F0Fu;
      var qhh = (q >> 4u) & 0x0F0F0F0Fu;
      if (q5) {
        let h = w[wi + 4u + k] >> (2u * c);
        ql |= (h & 0x01010101u) << 4u;
        qhh |= (h & 0x02020202u) << 3u;
      }
      dl += dot(vec4<f32>(bytes4(ql)), xl[k]);
      dh += dot(vec4<f32>(bytes4(qhh)), xh[k]);
    }
    acc[i] += lo.x * dl - lo.y * sl + hi.x * dh - hi.y * sh;
  }
}

// chunk_q6k's chunk c of the block at boff (first vec4 of the block's x x4blk), streamed; the four runs' sums are
// scaled once per row.
fn chunk_q6k_stream(boff : u32, c : u32, x4blk : u32) {
  let h = c / 2u;
  let lh = c % 2u;
  let x4 = x4blk + 32u * h + 4u * lh;
  var xv : array<vec4<f32>, 16>;  // [run r][k]
  for (var r = 0u; r < 4u; r++) {
    for (var k = 0u; k < 4u; k++) {
      xv[4u * r + k] = x_stream(x4 + 8u * r + k);
    }
  }
  for (var i = 0u; i < RPT; i++) {
    let base = rbase[i] + boff;
    let d = f16_at(base + 208u);
    let sa = sbytes4(w[(base + 192u + 8u * h) >> 2u]);       // scales[8h + 0..3]
    let sb = sbytes4(w[(base + 192u + 8u * h + 4u) >> 2u]);  // scales[8h + 4..7]
    let ds = d * select(vec4<f32>(sa.x, sa.z, sb.x, sb.z), vec4<f32>(sa.y, sa.w, sb.y, sb.w), lh == 1u);
    let l0 = base + 64u * h + 16u * lh;
    var s = vec4<f32>(0.0);  // per run r: dot(codes - 32, x)
    for (var k = 0u; k < 4u; k++) {
      let a = w[(l0 + 4u * k) >> 2u];
      let b = w[(l0 + 32u + 4u * k) >> 2u];
      let hq = w[(l0 + 128u - 32u * h + 4u * k) >> 2u];  // qh[32 h + 16 lh + 4 k ..]
      let q0 = (a & 0x0F0F0F0Fu) | ((hq << 4u) & 0x30303030u);
      let q1 = (b & 0x0F0F0F0Fu) | ((hq << 2u) & 0x30303030u);
      let q2 = ((a >> 4u) & 0x0F0F0F0Fu) | (hq & 0x30303030u);
      let q3 = ((b >> 4u) & 0x0F0F0F0Fu) | ((hq >> 2u) & 0x30303030u);
      s.x += dot(vec4<f32>(bytes4(q0)) - 32.0, xv[k]);
      s.y += dot(vec4<f32>(bytes4(q1)) - 32.0, xv[4u + k]);
      s.z += dot(vec4<f32>(bytes4(q2)) - 32.0, xv[8u + k]);
      s.w += dot(vec4<f32>(bytes4(q3)) - 32.0, xv[12u + k]);
    }
    acc[i] += dot(s, ds);
  }
}

// chunk_b32's block (byte boff of the rows, first vec4 of x x4), streamed: w = d * q + mn, so each row's sum is
// d * dot(q, x) + mn * sum(x).
fn chunk_b32_stream(wt : u32, boff : u32, x4 : u32) {
  var xv : array<vec4<f32>, 8>;
  var s4 = vec4<f32>(0.0);
  for (var k = 0u; k < 8u; k++) {
    xv[k] = x_stream(x4 + k);
    s4 += xv[k];
  }
  let sx = s4.x + s4.y + s4.z + s4.w;
  let q5 = wt == 6u;
  for (var i = 0u; i < RPT; i++) {
    var s = 0.0;
    if (wt == 8u) {
      let blk = q8_0_block(rbase[i] + boff);
      for (var k = 0u; k < 8u; k++) {
        s += dot(sbytes4(blk.q[k]), xv[k]);
      }
      acc[i] += blk.d * s;
    } else {
      let blk = nib32_block(q5, rbase[i] + boff);
      for (var k = 0u; k < 4u; k++) {
        let q = blk.q[k];
        let hl = ((vec4<u32>(blk.qh) >> (vec4<u32>(0u, 1u, 2u, 3u) + 4u * k)) & vec4<u32>(1u)) << vec4<u32>(4u);
        let hh = ((vec4<u32>(blk.qh) >> (vec4<u32>(16u, 17u, 18u, 19u) + 4u * k)) & vec4<u32>(1u)) << vec4<u32>(4u);
        s += dot(vec4<f32>(bytes4(q & 0x0F0F0F0Fu) | hl), xv[k]);
        s += dot(vec4<f32>(bytes4((q >> 4u) & 0x0F0F0F0Fu) | hh), xv[4u + k]);
      }
      acc[i] += blk.d * s + blk.mn * sx;
    }
  }
}

// Chunk c of the invocation's RPT rows of W (rbase), of weight type wt.
fn chunk_at(wt : u32, c : u32) {
  let kquant = wt >= 12u;
  let bb = select(select(select(22u, 20u, wt == 3u), 34u, wt == 8u), select(144u, select(176u, 212u,
                  wt == 14u), wt != 12u), kquant);  // bytes per block
  if (XQ != 0u) {
    if (kquant) {
      let blk = c / 4u;
      if (wt == 14u) {
        chunk_q6k_i8(blk * bb, c % 4u, blk * 8u);
      } else {
        chunk_k45_i8(wt, blk * bb, c % 4u, 2u * c);
      }
    } else {
      chunk_b32_i8(wt, c * bb, c);
    }
    return;
  }
  if (kquant) {
    let blk = c / 4u;
    if (wt == 14u) {
      if (STREAM != 0u && MB == 1u) {
        chunk_q6k_stream(blk * bb, c % 4u, blk * 64u);
      } else {
        chunk_q6k(blk * bb, c % 4u, blk * 64u);
      }
    } else {
      if (STREAM != 0u && MB == 1u) {
        chunk_k45_stream(wt, blk * bb, c % 4u, c * 16u);
      } else {
        chunk_k45(wt, blk * bb, c % 4u, c * 16u);
      }
    }
  } else if (STREAM != 0u && MB == 1u) {
    chunk_b32_stream(wt, c * bb, c * 8u);
  } else {
    chunk_b32(wt, c * bb, c * 8u);
  }
}

// The invocation's chunks (k lane t: chunks t, t + TK, ...) of its RPT rows of W, of weight type wt. KCH != 0 (the
// host's promise that p.K holds exactly KCH * TK chunks of every type of the dispatch): a loop of constant trip
// count, which lavapipe's compiler unrolls into code without per-lane execution masks (K 2048 x N 8192 Q4_K and
// Q6_K: about 0.75x the time, BENCHMARKS.md); else the loop over c, whose trip count differs between lanes.
fn chunks(wt : u32, t : u32) {
  if (KCH != 0u) {
    for (var j = 0u; j < KCH; j++) {
      chunk_at(wt, t + j * TK);
    }
    return;
  }
  let ce = select(32u, 64u, wt >= 12u);  // elements per chunk
  for (var c = t; c < p.K / ce; c += TK) {
    chunk_at(wt, c);
  }
}

// The work of workgroup wg (< p.nwg) on grid layer wid.z: the norm / int8 staging of its MB rows of x, the chunks of
// its RPT rows of W per row lane, and the partial sums in part ([MB][rows][TK + PAD]; synchronized on return).
// Both entry points (gemv_kq.wgsl, gemv_kq_rope.wgsl) call it, then reduce and store.
fn kq_partials(wg : u32, z : u32, lid : u32) {
  let m0 = z * MB;
  let r = lid / TK;
  let t = lid % TK;
  let rows = TR * RPT;  // rows of W per workgroup
  let k4 = p.K / 4u;
  for (var m = 0u; m < 8u; m++) {
    xoff[m] = min(m0 + m, p.M - 1u) * k4;
  }
  let second = wg >= p.wg_split;  // uniform per workgroup (0xffffffff: one part)
  for (var i = 0u; i < RPT; i++) {
    let n = gemv_row(wg, r + TR * i);
    rbase[i] = select(n * p.row_bytes, p.off2 + (n - p.n_split) * p.row_bytes2, second);
  }
  for (var m = 0u; m < MB; m++) {
    m_row = min(m0 + m, p.M - 1u);
    gemv_norm_begin(lid);  // NORM: x_inv of row m_row (uniform control flow)
    xinv[m] = select(1.0, x_inv, NORM != 0u);
    if (XQ == 2u) {
      stage_i8(lid, m);  // the norm is inside the staged values
      xinv[m] = 1.0;
    }
  }
  if (XQ == 2u) {
    workgroupBarrier();
  }
  for (var j = 0u; j < 16u; j++) {
    acc[j] = 0.0;
  }
  if (WTYPE2 != WTYPE && wg >= p.wg_split) {
    chunks(WTYPE2, t);
  } else {
    chunks(WTYPE, t);
  }
  for (var m = 0u; m < MB; m++) {
    for (var i = 0u; i < RPT; i++) {
      part[(m * rows + r + TR * i) * (TK + PAD) + t] = acc[MB * i + m] * xinv[m];
    }
  }
  workgroupBarrier();
}

// After kq_partials: the MB * rows row sums to part[m * rows + slot] (all invocations; synchronized on return).
fn kq_row_sums(lid : u32) {
  let rows = TR * RPT;
  var s = 0.0;
  if (lid < MB * rows) {
    for (var j = 0u; j < TK; j++) {
      s += part[lid * (TK + PAD) + j];
    }
  }
  workgroupBarrier();
  if (lid < MB * rows) {
    part[lid] = s;
  }
  workgroupBarrier();
}
