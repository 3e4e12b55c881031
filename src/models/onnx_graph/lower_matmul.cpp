// ONNX MatMul (NumPy matmul semantics: 1-D operands promoted, batch dims broadcast) and Gemm
// (alpha * A' B' + beta * C, transA/transB, C unidirectionally broadcast to [M, N]).
// MatMul with a B without (or with all-1) batch dims is one aten.mm over A's rows; equal batch dims are
// aten.bmm; other broadcasts expand both operands first. Gemm is aten.addmm (or aten.mm when C is absent).
#include "models/onnx_graph/host_eval.h"
#include "models/onnx_graph/lowering.h"

namespace wgrt::onnx {

namespace {

// x (dims d) expanded to dims `to` on the device (broadcasting add of zeros).
ValueId expand_to(Lowering& l, ValueId x, const Dims& d, const Dims& to) {
  if (d == to) return x;
  ValueId z = l.constant_f32(l.label("zeros"), to, std::vector<float>(size_t(numel(to)), 0.0f));
  return l.emit("aten.add.Tensor", {x, z, l.g.real(1.0)}, to, "expand");
}

void lower_matmul(Lowering& l) {
  l.known_attrs({});
  Dims da = l.dims(0), db = l.dims(1);
  if (da.empty() || db.empty()) l.fail("MatMul operands must have rank >= 1");
  const bool a1 = da.size() == 1, b1 = db.size() == 1;
  if (a1) da.insert(da.begin(), 1);
  if (b1) db.push_back(1);
  const int64_t M = da[da.size() - 2], K = da.back(), N = db.back();
  if (db[db.size() - 2] != K) l.fail("inner dims differ: {} and {}", dims_str(l.dims(0)), dims_str(l.dims(1)));
  const Dims ba(da.begin(), da.end() - 2), bb(db.begin(), db.end() - 2);
  auto bo = broadcast_dims(ba, bb);
  if (!bo) l.fail("batch dims of {} and {} do not broadcast", dims_str(l.dims(0)), dims_str(l.dims(1)));
  Dims od = *bo;
  if (!a1) od.push_back(M);
  if (!b1) od.push_back(N);
  Dims full = *bo;
  full.insert(full.end(), {M, N});
  ValueId a = l.gpu(0), b = l.gpu(1);
  ValueId y;
  if (numel(bb) == 1 && ba == *bo) {
    const int64_t rows = numel(ba) * M;
    ValueId a2 = l.view(a, {rows, K});
    ValueId b2 = l.dims(1) == Dims{K, N} ? b : l.view(b, {K, N});
    y = l.emit("aten.mm.default", {a2, b2}, {rows, N});
  } else {
    const int64_t Z = numel(*bo);
    Dims ea = *bo, eb = *bo;
    ea.insert(ea.end(), {M, K});
    eb.insert(eb.end(), {K, N});
    Dims pa = Dims(ba.size() < bo->size() ? bo->size() - ba.size() : 0, 1), pb = Dims(bb.size() < bo->size() ? bo->size() - bb.size() : 0, 1);
    pa.insert(pa.end(), da.begin(), da.end());
    pb.insert(pb.end(), db.begin(), db.end());
    a = expand_to(l, l.view(a, pa), pa, ea);
    b = expand_to(l, l.view(b, pb), pb, eb);
    y = l.emit("aten.bmm.default", {l.view(a, {Z, M, K}), l.view(b, {Z, K, N})}, {Z, M, N});
  }
  l.set_gpu(0, l.view(y, od), od);
}

void lower_gemm(Lowering& l) {
  l.known_attrs({"alpha", "beta", "transA", "transB"});
  const float alpha = l.attr_float("alpha", 1.0f), beta = l.attr_float("beta", 1.0f);
  const bool ta = l.attr_int("transA", 0) != 0, tb = l.attr_int("transB", 0) != 0;
  if (l.rank(0) != 2 || l.rank(1) != 2) l.fail("A and B must be 2-D");
  auto operand = [&](size_t i, bool t) -> std::pair<ValueId, Dims> {
    Dims d = l.dims(i);
    if (!t) return {l.gpu(i), d};
    if (l.is_host(i)) {
      HostTensor h = host_permute(l.host(i), {1, 0});
      return {l.constant_f32(l.label(i == 0 ? "A^T" : "B^T"), h.dims, h.floats()), h.dims};
    }
    return {l.permute(l.gpu(i), d, {1, 0}), Dims{d[1], d[0]}};
  };
  auto [a, da] = operand(0, ta);
  auto [b, db] = operand(1, tb);
  const int64_t M = da[0], K = da[1], N = db[1];
  if (db[0] != K) l.fail("inner dims differ: A' {} and B' {}", dims_str(da), dims_str(db));
  const Dims od = {M, N};
  ValueId y;
  if (l.has(2) && beta != 0.0f) {
    const Dims& dc = l.dims(2);
    if (dc.size() > 2 || !broadcast_dims(dc, od) || *broadcast_dims(dc, od) != od) l.fail("C {} does not broadcast to [{}, {}]", dims_str(dc), M, N);
    y = l.emit("aten.addmm.default", {l.gpu(2), a, b, l.g.real(beta), l.g.real(alpha)}, od);
  } else {
    y = l.emit("aten.mm.default", {a, b}, od);
    if (alpha != 1.0f) {
      ValueId s = l.constant_f32(l.label("alpha"), {}, {alpha});
      y = l.emit("aten.mul.Tensor", {y, s}, od, "alpha");
    }
  }
  l.set_gpu(0, y, od);
}

}  // namespace

std::vector<OpRule> matmul_rules() { return {{"MatMul", 1, lower_matmul}, {"Gemm", 7, lower_gemm}}; }

}  // namespace wgrt::onnx
