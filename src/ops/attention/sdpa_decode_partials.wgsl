// The split-KV partials of the decode attention kernels (sdpa_decode_body.wgsl and its includers,
// sdpa_decode_sg.wgsl), merged by combine_splits (sdpa_decode_body.wgsl). Per query row and split (vec4): the
// unnormalized acc at [(row*stride + c)*D4 + d4], (m, l, 0, 0) at [ml_base + row*stride + c]. The includer
// declares `partials` (read_write, array<vec4<f32>>) and the override D4.
// Writes split c's partial of query row `row` for vec4 dims d4 (partials layout above, D4 vec4 per row; row
// stride `stride` splits, (m, l) rows from ml_base): the unnormalized sum and, from lane d4 == 0, (m, l).
fn store_split(row : u32, stride : u32, c : u32, ml_base : u32, d4 : u32, sum : vec4<f32>, m : f32, l : f32) {
  partials[(row * stride + c) * D4 + d4] = sum;
  if (d4 == 0u) {
    partials[ml_base + row * stride + c] = vec4<f32>(m, l, 0.0, 0.0);
  }
}
