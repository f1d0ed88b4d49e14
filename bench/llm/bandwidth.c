// Read bandwidth of one or more cores: each thread sums its share of a large
// float array (1 GiB by default, far beyond the caches) with wide vector
// loads, and the best of several passes is printed as GB/s (1e9 bytes/s).
// Decode of a language model streams every weight once per token, so this is
// the rate its tokens/s is bounded by.
//
//   cc -O3 -march=native -pthread bandwidth.c -o bandwidth
//   ./bandwidth THREADS [MiB] [PASSES]     -> "threads 2: 41.3 GB/s (best of 10)"
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float vec __attribute__((vector_size(64), aligned(64)));

struct share {
  const vec* begin;
  size_t count;
  pthread_barrier_t* start;
  float sum;
};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void* sum_share(void* arg) {
  struct share* s = arg;
  pthread_barrier_wait(s->start);
  // Four accumulators keep enough loads in flight that the adds never wait.
  vec a = {0}, b = {0}, c = {0}, d = {0};
  size_t i = 0;
  for (; i + 4 <= s->count; i += 4) {
    a += s->begin[i];
    b += s->begin[i + 1];
    c += s->begin[i + 2];
    d += s->begin[i + 3];
  }
  for (; i < s->count; ++i) a += s->begin[i];
  vec total = a + b + c + d;
  float sum = 0;
  for (size_t k = 0; k < sizeof(vec) / sizeof(float); ++k) sum += total[k];
  s->sum = sum;
  pthread_barrier_wait(s->start);
  return NULL;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 1024;
  int passes = argc > 3 ? atoi(argv[3]) : 10;
  if (threads < 1 || threads > 256 || mib < 1 || passes < 1) {
    fprintf(stderr, "usage: bandwidth THREADS [MiB] [PASSES]\n");
    return 2;
  }
  size_t bytes = mib << 20;
  size_t count = bytes / sizeof(vec);
  vec* data = aligned_alloc(4096, count * sizeof(vec));
  if (!data) {
    fprintf(stderr, "bandwidth: cannot allocate %zu MiB\n", mib);
    return 1;
  }
  // Written first so every page is backed: the passes then read memory, not
  // the kernel's shared zero page.
  float* f = (float*)data;
  for (size_t i = 0; i < count * (sizeof(vec) / sizeof(float)); ++i) f[i] = (float)(i & 7);

  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, (unsigned)threads + 1);
  struct share* shares = calloc((size_t)threads, sizeof *shares);
  pthread_t* ids = calloc((size_t)threads, sizeof *ids);
  double best = 0, checksum = 0;
  for (int pass = 0; pass < passes; ++pass) {
    size_t per = count / (size_t)threads;
    for (int t = 0; t < threads; ++t) {
      shares[t] = (struct share){data + per * (size_t)t, t + 1 == threads ? count - per * (size_t)t : per, &barrier, 0};
      pthread_create(&ids[t], NULL, sum_share, &shares[t]);
    }
    pthread_barrier_wait(&barrier);
    double start = now_s();
    pthread_barrier_wait(&barrier);
    double seconds = now_s() - start;
    for (int t = 0; t < threads; ++t) {
      pthread_join(ids[t], NULL);
      checksum += shares[t].sum;
    }
    double rate = (double)(count * sizeof(vec)) / seconds / 1e9;
    if (rate > best) best = rate;
  }
  printf("threads %d: %.2f GB/s (best of %d passes over %zu MiB; checksum %.0f)\n", threads, best, passes, mib,
         checksum);
  return 0;
}
