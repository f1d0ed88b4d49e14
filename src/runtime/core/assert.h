// Checks of internal invariants. A failed check is a bug in Kiln, never a bad
// input: it prints where it failed and aborts. Bad inputs are reported with
// `Error` values instead.
#pragma once

#include <cstdio>
#include <cstdlib>

#define KILN_CHECK(cond)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "kiln: internal check failed at %s:%d: %s\n",   \
                   __FILE__, __LINE__, #cond);                             \
      std::abort();                                                        \
    }                                                                      \
  } while (0)
