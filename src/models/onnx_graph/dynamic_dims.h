// One built graph for several input sizes (OnnxModel with bounded symbolic dims, include/wgrt/onnx.h).
//
// The importer lowers the model at the bounded max dims and builds that graph once (weights uploaded once).
// For a run at other dims it lowers the model again on the host (no GPU work: a Graph value list) and compares
// that "fresh" graph with the built one value by value and node by node. Where they differ only in what the
// graph runtime recomputes at execute time, the built graph serves the run:
//   - tensor dims: live dims, recomputed by every op's resize hook (same rank, each dim <= the built max);
//   - an Int argument that its op reads live in its resize hook (aten.slice_copy start/end,
//     aten.select_copy index): a free SymInt in the built graph, set before execute (ExecutableGraph::set_symint);
//   - an aten.view_copy size list: a list of SymInts in the built graph (appended after the lowered values),
//     set before execute.
// Those are the positions of a DynamicPlan. They are found by comparison, so a position first seen to differ
// at a later size grows the plan (the caller rebuilds once with the larger plan). Anything else that differs
// (another op or node order, a constant whose data depends on the size, a float, bool or other list argument,
// an Int an op captures at build, dims above the max) is reported as the mismatch and the caller compiles a
// graph for that size of its own (the documented rebuild rule, docs/ONNX.md).
// Device-free; the graphs must come from the same model and lowering code.
#pragma once
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace wgrt::onnx {

struct DynamicPlan {
  std::set<ValueId> symints;  // Int values turned into free SymInts
  std::set<ValueId> views;    // view_copy size lists turned into lists of free SymInts
  bool empty() const { return symints.empty() && views.empty(); }
  void merge(const DynamicPlan& o);
};

struct DimsMatch {
  std::string mismatch;  // empty: no difference outside the plan and `grow`
  DynamicPlan grow;      // differing positions the plan does not cover yet but could
  std::vector<std::pair<ValueId, int64_t>> symints;  // the plan's SymInt values at the fresh dims
  std::vector<std::pair<ValueId, Dims>> live_dims;   // every non-constant tensor's dims at the fresh dims
  bool serves() const { return mismatch.empty() && grow.empty(); }
};

// A digest of every constant's bytes (and size) by value id (0 for other values), taken before the build
// (ExecutableGraph::build releases the host copies once uploaded). A 64-bit multiply-xorshift hash: the graphs
// compared come from one model file, so equal digests of differing data would need a crafted collision.
std::vector<uint64_t> constant_digests(const Graph& g);

// `built`: the graph lowered at max dims with `plan` applied (apply_plan), built or not (its tensors' max_dims
// are kept by the build), and `built_digests` its constant_digests. `fresh`: the model lowered at the run's dims.
DimsMatch match_dims(const Graph& built, const std::vector<uint64_t>& built_digests, const DynamicPlan& plan, const Graph& fresh);

// Rewrites the plan's positions of a graph lowered at max dims (Int -> SymInt of the same value, an IntList ->
// a ValueList of new SymInts of the same values).
void apply_plan(Graph& g, const DynamicPlan& plan);

}  // namespace wgrt::onnx
