/* One core's FP32 fused multiply-add peak, measured: enough independent
 * chains of vector FMAs to fill every FMA unit's pipeline, on registers
 * only. bench/bench.py builds it with -O2 -march=native (the widest vectors
 * the machine has) and reads the one number it prints: GFLOP/s, the best of
 * several runs of about 0.1 s each. */
#include <stdio.h>
#include <time.h>

#if defined(__AVX512F__)
typedef float vec __attribute__((vector_size(64)));
#else
typedef float vec __attribute__((vector_size(32)));
#endif

enum { kChains = 12, kLanes = sizeof(vec) / sizeof(float) };

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Where each run's sum goes: a store the compiler must make, so the work is
 * neither dropped nor moved out of the timed interval. */
volatile float g_sink;

/* iterations x kChains FMAs of kLanes lanes, in registers (the chains
 * written out, so the compiler keeps each in its own). */
static void run(long iterations, float scale) {
  const vec a = (vec){0} + scale, b = (vec){0} + 1e-7f;
  vec c0 = a, c1 = a + 1, c2 = a + 2, c3 = a + 3, c4 = a + 4, c5 = a + 5;
  vec c6 = a + 6, c7 = a + 7, c8 = a + 8, c9 = a + 9, c10 = a + 10, c11 = a + 11;
  for (long i = 0; i < iterations; ++i) {
    c0 = c0 * a + b; c1 = c1 * a + b; c2 = c2 * a + b; c3 = c3 * a + b;
    c4 = c4 * a + b; c5 = c5 * a + b; c6 = c6 * a + b; c7 = c7 * a + b;
    c8 = c8 * a + b; c9 = c9 * a + b; c10 = c10 * a + b; c11 = c11 * a + b;
  }
  const vec sum = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11;
  float total = 0;
  for (int l = 0; l < kLanes; ++l) total += sum[l];
  g_sink = total;
}

int main(void) {
  long iterations = 1 << 20;
  while (1) { /* long enough for ~0.1 s */
    const double start = now_s();
    run(iterations, 0.999999f);
    if (now_s() - start > 0.1) break;
    iterations *= 2;
  }
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    const double start = now_s();
    run(iterations, 0.999999f);
    const double gflops = 2.0 * kChains * kLanes * (double)iterations / (now_s() - start) / 1e9;
    if (gflops > best) best = gflops;
  }
  printf("%.1f\n", best);
  return 0;
}
