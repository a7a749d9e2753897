// The machine's single-core fp32 FMA peak, measured at run time (the 100 % of the benchmark).
#pragma once

#include <string>

namespace nasc::bench {

/// Measured fp32 throughput of one core and the instructions that reached it.
struct FmaPeak {
  std::string isa;   ///< "avx512f" (16 lanes), "avx2+fma" (8 lanes) or "none" (not measured).
  double gflops = 0; ///< GFLOP/s, 2 FLOP per lane per FMA; 0 when not measured.
};

/// Runs, on the calling thread, independent chains of vector FMAs (acc = acc·a + b) on the
/// widest float vectors the CPU supports, chosen at run time with __builtin_cpu_supports:
/// AVX-512F (16 lanes, 24 chains in 32 zmm registers) or AVX2 + FMA (8 lanes, 12 chains in 16 ymm
/// registers), enough chains to hide an FMA latency of 4-6 cycles on two FMA pipes. Only those
/// functions are compiled for their ISA (__attribute__((target))), so the binary runs anywhere.
/// Best of 100 trials of about `seconds` / 100 each (short, so that on a loaded machine some
/// trials run without being preempted). Without FMA (or off x86) returns {"none", 0}.
FmaPeak measureFmaPeak(double seconds);

} // namespace nasc::bench
