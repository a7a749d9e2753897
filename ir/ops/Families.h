// Internal to ir/ops: the op families, one file each; OpDef.cpp gathers them into the registry.
#pragma once

#include "ir/ops/OpDef.h"

namespace nasc::ir::ops {

std::vector<OpDef> convOps();          ///< Conv (ConvOps.cpp)
std::vector<OpDef> poolOps();          ///< MaxPool, AveragePool, Global*Pool (PoolOps.cpp)
std::vector<OpDef> normalizationOps(); ///< BatchNormalization (NormalizationOps.cpp)
std::vector<OpDef> elementwiseOps();   ///< Relu, Clip, Add, Sub, Mul, Div (ElementwiseOps.cpp)
std::vector<OpDef> gemmOps();          ///< Gemm, MatMul (GemmOps.cpp)
std::vector<OpDef> shapeOps();         ///< Flatten, Reshape, Concat, ... (ShapeOps.cpp)
std::vector<OpDef> sliceOps();         ///< Slice (SliceOps.cpp)
std::vector<OpDef> resizeOps();        ///< Resize (ResizeOps.cpp)

/// Every family, in the order above.
inline const std::vector<std::vector<OpDef> (*)()> kOpFamilies = {
    convOps, poolOps, normalizationOps, elementwiseOps, gemmOps, shapeOps, sliceOps, resizeOps};

} // namespace nasc::ir::ops
