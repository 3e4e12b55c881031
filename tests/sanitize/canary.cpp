// Sanitizer canary (built only with -DWGRT_SANITIZE=ON; see tests/CMakeLists.txt). Deliberately broken:
//   canary heap  reads one int past a 4-int heap block (AddressSanitizer must report heap-buffer-overflow);
//   canary ub    overflows a signed int (UndefinedBehaviorSanitizer must report a runtime error).
// The inputs come from argv so the compiler cannot fold the faults away. Without sanitizers both print a
// value and exit 0, which the tests' expected-output checks turn into a failure.
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Outside UBSan's view (its object-size check would otherwise report the read first and stop the run before
// AddressSanitizer does): only ASan can see this overflow.
__attribute__((noinline, no_sanitize("undefined"))) int read_at(const int* p, int i) { return p[i]; }

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (std::strcmp(argv[1], "heap") == 0) {
    int* p = static_cast<int*>(std::malloc(4 * sizeof(int)));
    for (int i = 0; i < 4; ++i) p[i] = i;
    volatile int n = 4 + argc - 2;  // 4: one past the end
    std::printf("read %d\n", read_at(p, n));
    std::free(p);
    return 0;
  }
  if (std::strcmp(argv[1], "ub") == 0) {
    volatile int big = 0x7fffffff - 2 + argc;  // INT_MAX
    int r = big + 1;
    std::printf("sum %d\n", r);
    return 0;
  }
  return 2;
}
