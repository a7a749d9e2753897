#include "tools/bench/FmaPeak.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace nasc::bench {

namespace {

/// Trials of a measurement: many short ones, so that some run without being preempted.
constexpr int kTrials = 100;

/// FMA multiplier and addend: acc = acc·a + b converges to b / (1 - a) = 1, never overflows or
/// goes subnormal. Volatile so that the compiler cannot fold the chains.
volatile float fmaA = 0.9999999f, fmaB = 1e-7f;
volatile float fmaSink = 0;

/// A kernel running `iterations` rounds of its chains; returns a value depending on all chains.
struct FmaKernel {
  std::string isa;
  double flopsPerIteration = 0;
  std::function<float(int64_t)> run;
};

#if defined(__x86_64__)
constexpr int kAvx512Chains = 24, kAvx2Chains = 12;

/// Sum of `count` floats.
float sum(const float *values, int count) {
  float total = 0;
  for (int i = 0; i < count; ++i)
    total += values[i];
  return total;
}

__attribute__((target("avx512f"))) float fmaChainsAvx512(int64_t iterations) {
  const __m512 a = _mm512_set1_ps(fmaA), b = _mm512_set1_ps(fmaB);
  __m512 acc[kAvx512Chains];
#pragma GCC unroll 24
  for (int c = 0; c < kAvx512Chains; ++c)
    acc[c] = _mm512_set1_ps(static_cast<float>(c));
  for (int64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 24
    for (int c = 0; c < kAvx512Chains; ++c)
      acc[c] = _mm512_fmadd_ps(acc[c], a, b);
  alignas(64) float lanes[kAvx512Chains][16];
  for (int c = 0; c < kAvx512Chains; ++c)
    _mm512_store_ps(lanes[c], acc[c]);
  return sum(&lanes[0][0], kAvx512Chains * 16);
}

__attribute__((target("avx2,fma"))) float fmaChainsAvx2(int64_t iterations) {
  const __m256 a = _mm256_set1_ps(fmaA), b = _mm256_set1_ps(fmaB);
  __m256 acc[kAvx2Chains];
#pragma GCC unroll 12
  for (int c = 0; c < kAvx2Chains; ++c)
    acc[c] = _mm256_set1_ps(static_cast<float>(c));
  for (int64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 12
    for (int c = 0; c < kAvx2Chains; ++c)
      acc[c] = _mm256_fmadd_ps(acc[c], a, b);
  alignas(32) float lanes[kAvx2Chains][8];
  for (int c = 0; c < kAvx2Chains; ++c)
    _mm256_store_ps(lanes[c], acc[c]);
  return sum(&lanes[0][0], kAvx2Chains * 8);
}
#endif

/// The widest FMA kernel the host supports, or one with an empty `run`.
FmaKernel hostKernel() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return {"avx512f", 2.0 * 16 * kAvx512Chains, fmaChainsAvx512};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {"avx2+fma", 2.0 * 8 * kAvx2Chains, fmaChainsAvx2};
#endif
  return {"none", 0, {}};
}

/// Wall seconds of kernel.run(iterations).
double secondsOf(const FmaKernel &kernel, int64_t iterations) {
  auto start = std::chrono::steady_clock::now();
  fmaSink = fmaSink + kernel.run(iterations);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

FmaPeak measureFmaPeak(double seconds) {
  FmaKernel kernel = hostKernel();
  if (!kernel.run)
    return {kernel.isa, 0};
  const int64_t probe = 1 << 16;
  double probeSeconds = std::max(secondsOf(kernel, probe), 1e-6);
  const auto iterations =
      std::max<int64_t>(probe, static_cast<int64_t>(probe * seconds / kTrials / probeSeconds));
  double best = 0;
  for (int trial = 0; trial < kTrials; ++trial)
    best = std::max(best, kernel.flopsPerIteration * static_cast<double>(iterations) /
                              secondsOf(kernel, iterations));
  return {kernel.isa, best * 1e-9};
}

} // namespace nasc::bench
