// The C++ test drivers' one assertion: CHECK(cond) reports a failed condition with its place,
// counts it in `failures` and leaves the check function; main ends with `return summary(...)`.
#pragma once

#include <cstdio>

namespace {

int failures = 0;

#define CHECK(cond)                                                               \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                                 \
      return;                                                                     \
    }                                                                             \
  } while (0)

// main's exit code: 1 if any check failed (their count on stderr), else 0 and `all_passed`.
int summary(const char* all_passed) {
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("%s\n", all_passed);
  return 0;
}

}  // namespace
