// The serving batch's decode step without HTTP (models::BatchLlm::step, the graph `wgrt serve` runs): for each
// row count B, B sequences (slots 0..B-1) each prefilled to `--depth` positions advance one greedy token per step
// together; prints the median step wall time (set inputs, execute, read back B argmax ids), aggregate tok/s
// (B / step) and the dispatches per step, and with --profile the per-kernel GPU time table of the timed steps
// (timestamp queries: each dispatch in its own pass, which adds a floor per dispatch). Answers where a B-row
// step's time goes (issue 15: 8 streams vs 1) per weight format. Knobs: the device policy's WGRT_* variables.
// Usage: wgrt_bench_batch -m MODEL [--rows 1,2,4,8] [--depth 128] [--steps 32] [--ctx 1024] [--profile]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/batch_llm.h"

using namespace wgrt;

namespace {

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> v;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    v.push_back(std::stoi(s.substr(i, j - i)));
    if (v.back() < 1) throw std::invalid_argument("--rows: each count must be >= 1");
    i = j + 1;
  }
  if (v.empty()) throw std::invalid_argument("--rows: give at least one count");
  return v;
}

int run(int argc, char** argv) {
  LlmOptions o;
  std::vector<int> rows_list = {1, 2, 4, 8};
  int depth = 128, steps = 32;
  o.context = 1024;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "-m") o.model = next();
    else if (a == "--rows") rows_list = parse_list(next());
    else if (a == "--depth") depth = std::stoi(next());
    else if (a == "--steps") steps = std::stoi(next());
    else if (a == "--ctx") o.context = std::stoi(next());
    else if (a == "--profile") o.profile = true;
    else throw std::invalid_argument("unknown argument '" + a + "' (usage: see the file's header)");
  }
  if (o.model.empty()) throw std::invalid_argument("-m MODEL is required");
  if (depth < 1 || steps < 1 || depth + steps + 8 > o.context)
    throw std::invalid_argument(fmt::format("need depth >= 1, steps >= 1 and depth + steps + 8 <= --ctx {}", o.context));
  const int slots = *std::max_element(rows_list.begin(), rows_list.end());
  auto llm = models::BatchLlm::load(o, slots);
  fmt::print("{}\n", llm->description());
  // Every slot prefilled to `depth` (varied ids), then each slot's next token is its own argmax.
  std::vector<std::vector<int32_t>> seq(static_cast<size_t>(slots));
  const int V = llm->vocab_size();
  for (int s = 0; s < slots; ++s) {
    for (int p = 0; p < depth; ++p) seq[size_t(s)].push_back(int32_t((1 + 7919 * (s + 1) * (p + 3)) % V));
    for (int p = 0; p < depth; p += llm->max_rows()) {
      std::vector<models::BatchRow> rows;
      for (int q = p; q < std::min(depth, p + llm->max_rows()); ++q) rows.push_back({seq[size_t(s)][size_t(q)], s, q});
      const int last = int(rows.size()) - 1;
      models::StepOutput out = llm->step(rows, std::span<const int>(&last, 1), false);
      if (p + llm->max_rows() >= depth) seq[size_t(s)].push_back(std::max(0, out.argmax[0]));
    }
  }
  fmt::print("| rows | step ms (median) | aggregate tok/s | vs 1 row | dispatches/step |\n|---|---|---|---|---|\n");
  double one = 0;
  std::vector<std::string> tables;
  for (int B : rows_list) {
    auto step = [&]() {
      std::vector<models::BatchRow> rows;
      std::vector<int> outs;
      for (int s = 0; s < B; ++s) {
        rows.push_back({seq[size_t(s)].back(), s, int(seq[size_t(s)].size()) - 1});
        outs.push_back(s);
      }
      models::StepOutput out = llm->step(rows, outs, false);
      for (int s = 0; s < B; ++s) {
        seq[size_t(s)].push_back(std::max(0, out.argmax[size_t(s)]));
        if (int(seq[size_t(s)].size()) >= o.context) seq[size_t(s)].resize(size_t(depth) + 1);  // rewind: keep the depth
      }
    };
    for (int w = 0; w < 3; ++w) step();  // pipelines of this row count compiled, caches warm
    llm->profile_reset();
    std::vector<double> ms;
    for (int k = 0; k < steps; ++k) {
      auto t0 = std::chrono::steady_clock::now();
      step();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2], tps = 1000.0 * B / med;
    if (B == rows_list.front()) one = tps / B;
    fmt::print("| {} | {:.3f} | {:.1f} | {:.2f}x | {} |\n", B, med, tps, tps / one, llm->step_dispatches());
    if (o.profile) tables.push_back(fmt::format("== {} rows, {} steps at depth ~{}\n{}", B, steps, depth, llm->profile_report()));
  }
  for (const std::string& t : tables) fmt::print("{}", t);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "wgrt_bench_batch: error: {}\n", e.what());
    return 1;
  }
}
