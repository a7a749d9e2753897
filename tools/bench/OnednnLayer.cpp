#include "tools/bench/OnednnLayer.h"

#include <cstring>

namespace nasc::bench {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

/// A primitive with the memory descriptors oneDNN chose for it.
struct Primitive {
  dnnl::primitive primitive;
  memory::desc src, weights, bias, dst;
  std::string implementation;
};

/// Dimensions and plain (user) layouts of the layer's src, weights, bias and dst.
struct PlainLayouts {
  memory::dims src, weights, bias, dst;
  Tag srcTag, weightsTag, dstTag;
};

PlainLayouts plainLayouts(const LayerShape &s) {
  if (s.gemm)
    return {{1, s.C}, {s.K, s.C}, {s.K}, {1, s.K}, Tag::nc, Tag::oi, Tag::nc};
  memory::dims src{1, s.C, s.H, s.W}, dst{1, s.K, s.outH(), s.outW()};
  if (s.group == 1)
    return {src, {s.K, s.C, s.kernel, s.kernel}, {s.K}, dst, Tag::nchw, Tag::oihw, Tag::nchw};
  return {src,       {s.group, s.K / s.group, s.C / s.group, s.kernel, s.kernel},
          {s.K},     dst,
          Tag::nchw, Tag::goihw,
          Tag::nchw};
}

memory::desc anyDesc(const memory::dims &dims) {
  return memory::desc(dims, memory::data_type::f32, Tag::any);
}

/// The primitive of `pd` (of the primitive class Op) and its descriptors.
template <typename Op> Primitive fromDesc(const typename Op::primitive_desc &pd) {
  return {Op(pd),         pd.src_desc(), pd.weights_desc(),
          pd.bias_desc(), pd.dst_desc(), pd.impl_info_str()};
}

Primitive createPrimitive(const LayerShape &s, const PlainLayouts &plain,
                          const dnnl::engine &engine) {
  const auto prop = dnnl::prop_kind::forward_inference;
  if (s.gemm)
    return fromDesc<dnnl::inner_product_forward>(dnnl::inner_product_forward::primitive_desc(
        {prop, anyDesc(plain.src), anyDesc(plain.weights), anyDesc(plain.bias), anyDesc(plain.dst)},
        engine));
  const memory::dims strides{s.stride, s.stride}, pads{s.pad, s.pad};
  return fromDesc<dnnl::convolution_forward>(dnnl::convolution_forward::primitive_desc(
      {prop, dnnl::algorithm::convolution_direct, anyDesc(plain.src), anyDesc(plain.weights),
       anyDesc(plain.bias), anyDesc(plain.dst), strides, pads, pads},
      engine));
}

/// Memory of `dims` in plain layout `tag` holding a copy of `values`.
memory plainMemory(const memory::dims &dims, Tag tag, const std::vector<float> &values,
                   const dnnl::engine &engine) {
  memory m({dims, memory::data_type::f32, tag}, engine);
  std::memcpy(m.get_data_handle(), values.data(), values.size() * sizeof(float));
  return m;
}

/// `source` reordered into a new memory of `wanted` (or `source` itself if already so).
memory reordered(memory source, const memory::desc &wanted, dnnl::stream &stream) {
  if (source.get_desc() == wanted)
    return source;
  memory target(wanted, source.get_engine());
  dnnl::reorder(source, target).execute(stream, source, target);
  stream.wait();
  return target;
}

} // namespace

OnednnLayer::OnednnLayer(const LayerShape &shape, const LayerTensors &tensors,
                         const dnnl::engine &engine, bool plainIo)
    : engine_(engine), stream_(engine), plainIo_(plainIo) {
  const PlainLayouts plain = plainLayouts(shape);
  Primitive p = createPrimitive(shape, plain, engine_);
  primitive_ = p.primitive;
  implementation_ = p.implementation;
  auto input = [&](const memory::dims &dims, Tag tag, const ir::Tensor &t,
                   const memory::desc &wanted) {
    return reordered(plainMemory(dims, tag, t.f, engine_), wanted, stream_);
  };
  userSrc_ = plainMemory(plain.src, plain.srcTag, tensors.x.f, engine_);
  args_[DNNL_ARG_SRC] = reordered(userSrc_, p.src, stream_);
  args_[DNNL_ARG_WEIGHTS] = input(plain.weights, plain.weightsTag, tensors.w, p.weights);
  args_[DNNL_ARG_BIAS] = input(plain.bias, Tag::x, tensors.b, p.bias);
  args_[DNNL_ARG_DST] = memory(p.dst, engine_);
  userDst_ = memory({plain.dst, memory::data_type::f32, plain.dstTag}, engine_);
}

void OnednnLayer::run() {
  memory src = args_.at(DNNL_ARG_SRC), dst = args_.at(DNNL_ARG_DST);
  if (plainIo_ && src != userSrc_)
    dnnl::reorder(userSrc_, src).execute(stream_, userSrc_, src);
  primitive_.execute(stream_, args_);
  if (plainIo_)
    reorderDst();
  stream_.wait();
}

void OnednnLayer::reorderDst() {
  memory dst = args_.at(DNNL_ARG_DST);
  dnnl::reorder(dst, userDst_).execute(stream_, dst, userDst_);
}

std::vector<float> OnednnLayer::output() {
  reorderDst();
  stream_.wait();
  const auto *data = static_cast<const float *>(userDst_.get_data_handle());
  return std::vector<float>(data, data + userDst_.get_desc().get_size() / sizeof(float));
}

} // namespace nasc::bench
