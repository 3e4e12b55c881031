// Row-major coordinates of a flat element index, for kernels over tensors of rank <= 8 whose dims and strides
// sit in uniform blocks as array<vec4<u32>, 2> (innermost dim last; element k at [k / 4][k % 4]).
//   unravel(i, dims, rank): the coordinates c[0..rank) of flat index i, c[rank - 1] the fastest;
//   offset_of(c, strides, rank): sum_k c[k] * strides[k] (a stride of 0 broadcasts that dim).
fn dim_at(v : array<vec4<u32>, 2>, k : u32) -> u32 {
  return v[k / 4u][k % 4u];
}

fn unravel(i : u32, dims : array<vec4<u32>, 2>, rank : u32) -> array<u32, 8> {
  var c : array<u32, 8>;
  var rem = i;
  for (var d = i32(rank) - 1; d >= 0; d--) {
    let k = u32(d);
    let size = dim_at(dims, k);
    c[k] = rem % size;
    rem = rem / size;
  }
  return c;
}

fn offset_of(c : array<u32, 8>, strides : array<vec4<u32>, 2>, rank : u32) -> u32 {
  var o = 0u;
  for (var k = 0u; k < rank; k++) {
    o += c[k] * dim_at(strides, k);
  }
  return o;
}
