// The pair-merge loop shared by every tokenizer here (llama2.c run.c encode, llama.cpp llm_tokenizer_spm and
// llm_tokenizer_bpe): starting from a sequence of symbols, repeatedly merge the adjacent pair with the best key
// (smallest; ties: the leftmost pair) until no adjacent pair can merge. This gives exactly the result of run.c's
// rescan-everything loop, in O(n log n): a doubly linked list of symbols and a heap of candidate pairs; entries
// made stale by earlier merges are recognised by per-symbol generation counters and skipped.
#pragma once
#include <cstdint>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

namespace wgrt::text {

// TryMerge: (const Sym& left, const Sym& right) -> std::optional<std::pair<double, Sym>>: the key of merging the
// two (smaller = merged first) and the merged symbol, or nullopt if they cannot merge.
template <class Sym, class TryMerge>
std::vector<Sym> greedy_merge(std::vector<Sym> syms, TryMerge&& try_merge) {
  const std::size_t n = syms.size();
  if (n < 2) return syms;
  struct Node {
    int64_t prev, next;
    uint32_t gen;
    bool alive;
  };
  struct Cand {
    double key;
    int64_t left, right;
    uint32_t left_gen, right_gen;
    Sym merged;
  };
  auto worse = [](const Cand& a, const Cand& b) {  // priority_queue top = best = smallest key, then leftmost
    return a.key > b.key || (a.key == b.key && a.left > b.left);
  };
  std::vector<Node> nodes(n);
  for (std::size_t i = 0; i < n; ++i) {
    nodes[i] = {static_cast<int64_t>(i) - 1, i + 1 < n ? static_cast<int64_t>(i + 1) : -1, 0, true};
  }
  std::priority_queue<Cand, std::vector<Cand>, decltype(worse)> heap(worse);
  auto consider = [&](int64_t l, int64_t r) {
    if (l < 0 || r < 0) return;
    auto m = try_merge(syms[static_cast<std::size_t>(l)], syms[static_cast<std::size_t>(r)]);
    if (m) {
      heap.push(Cand{m->first, l, r, nodes[static_cast<std::size_t>(l)].gen, nodes[static_cast<std::size_t>(r)].gen,
                     std::move(m->second)});
    }
  };
  for (std::size_t i = 0; i + 1 < n; ++i) consider(static_cast<int64_t>(i), static_cast<int64_t>(i + 1));
  while (!heap.empty()) {
    Cand c = std::move(const_cast<Cand&>(heap.top()));
    heap.pop();
    Node& L = nodes[static_cast<std::size_t>(c.left)];
    Node& R = nodes[static_cast<std::size_t>(c.right)];
    if (!L.alive || !R.alive || L.gen != c.left_gen || R.gen != c.right_gen || L.next != c.right) continue;
    syms[static_cast<std::size_t>(c.left)] = std::move(c.merged);
    ++L.gen;
    R.alive = false;
    L.next = R.next;
    if (R.next >= 0) nodes[static_cast<std::size_t>(R.next)].prev = c.left;
    consider(L.prev, c.left);
    consider(c.left, L.next);
  }
  std::vector<Sym> out;
  for (int64_t i = 0; i >= 0; i = nodes[static_cast<std::size_t>(i)].next) out.push_back(std::move(syms[static_cast<std::size_t>(i)]));
  return out;
}

}  // namespace wgrt::text
