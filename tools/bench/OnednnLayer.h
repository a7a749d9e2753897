// One benchmarked layer as a oneDNN primitive: the yardstick of the per-layer benchmark.
#pragma once

#include "tools/bench/LayerSuite.h"
#include "tools/bench/LayerTensors.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <string>
#include <unordered_map>
#include <vector>

namespace nasc::bench {

/// The layer as oneDNN's convolution_forward (prop_kind::forward_inference,
/// algorithm::convolution_direct) or, for a Gemm, inner_product_forward (forward_inference),
/// on f32 memory descriptors with format_tag::any for src, weights, bias and dst: oneDNN picks
/// its preferred (blocked) layouts. The NCHW / OIHW (GOIHW when grouped) data of `tensors` is
/// reordered into them once, here, so run() times the primitive alone; with `plainIo`, run()
/// also reorders the NCHW input into oneDNN's src layout and its dst back to NCHW, as nasc's
/// layer does (weights and bias stay reordered once). Throws dnnl::error if oneDNN has no
/// implementation.
class OnednnLayer {
public:
  OnednnLayer(const LayerShape &shape, const LayerTensors &tensors, const dnnl::engine &engine,
              bool plainIo = false);
  /// Executes the primitive (with plainIo: the src reorder, the primitive, the dst reorder) on
  /// the engine's stream and waits for it.
  void run();
  /// The output of the last run, reordered to row-major NCHW (or 1 x K).
  std::vector<float> output();
  /// oneDNN's name of the chosen implementation (primitive_desc::impl_info_str, e.g.
  /// "jit:avx2", "brgconv:avx512_core").
  const std::string &implementation() const { return implementation_; }

private:
  /// Submits the reorder of the primitive's dst into userDst_ (NCHW) to the stream.
  void reorderDst();

  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::primitive primitive_;
  std::unordered_map<int, dnnl::memory> args_;
  dnnl::memory userSrc_, userDst_;
  bool plainIo_;
  std::string implementation_;
};

} // namespace nasc::bench
