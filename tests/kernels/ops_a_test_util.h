// Helpers shared by the part-A op tests (linear, norm, embedding, reduce): closeness checks with a stated
// tolerance, expected-error checks, and reading golden files written by tests/golden/make_goldens_ops_a.py.
#pragma once
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "support/paths.h"
#include "wgrt/error.h"

namespace wgrt::test {

// |got - want| <= abs_tol + rel_tol * |want| elementwise (NaN never passes); reports the first 5 misses.
inline void expect_close(const std::vector<float>& got, const std::vector<float>& want, double abs_tol,
                         double rel_tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double d = std::fabs(double(got[i]) - double(want[i]));
    if (!(d <= abs_tol + rel_tol * std::fabs(double(want[i])))) {
      if (++bad <= 5) ADD_FAILURE() << what << ": element " << i << " got " << got[i] << " want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size() << " elements out of tolerance";
}

// Runs f, expects an exception of type E whose message contains `needle`.
template <typename E>
void expect_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one containing '" << needle << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// Golden arrays: tests/golden/ops_a/<file> raw little-endian f32 / u32.
template <typename T>
std::vector<T> read_golden_bin(const std::string& file) {
  std::ifstream f(source_path("tests/golden/ops_a/" + file), std::ios::binary);
  if (!f) throw InvalidArgument("cannot open golden file " + file);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

inline nlohmann::json read_golden_manifest() {
  std::ifstream f(source_path("tests/golden/ops_a/manifest.json"));
  if (!f) throw InvalidArgument("cannot open tests/golden/ops_a/manifest.json");
  return nlohmann::json::parse(f);
}

}  // namespace wgrt::test
