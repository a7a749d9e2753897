// The spatial bottleneck of a convolution (Peng et al., "Efficient Convolutional Neural Networks
// via Spatial Bottleneck", 2018; Turner et al., ASPLOS 2021, §4): compute on an S-strided output
// domain, then expand back to the original resolution by nearest-neighbour replication.
#pragma once

#include "ir/Graph.h"

#include <cstdint>
#include <string>

namespace nasc::nas {

/// spatial_bottleneck(S) of Conv `node` with output Y (N, K, O_1, ..., O_d): its strides are
/// multiplied by S (auto_pad is resolved into explicit pads first), so it computes
/// Y_s[n, k, o...] = Y[n, k, S·o...] on (N, K, O_1/S, ..., O_d/S), and a Resize node
/// `<node>_expand` (mode "nearest", coordinate_transformation_mode "asymmetric", nearest_mode
/// "floor", scales [1, 1, S, ..., S]) expands it: Y'[n, k, o...] = Y_s[n, k, floor(o/S)...].
/// The expansion is placed as late as exact: past the chain of single-consumer
/// BatchNormalization and ops marked ir::OpDef::unaryElementwise (Relu, Clip, Identity,
/// Dropout) that read Y, which commute with replication (a training-mode BN too: replicating
/// every element S^d times keeps its batch mean and variance). FLOP of the Conv ÷ S^d;
/// parameters unchanged; weights kept. Throws RefusedTransformation when S < 2 or S does not
/// divide an output extent O_i.
void spatialBottleneck(ir::Graph &graph, const std::string &node, int64_t S);

/// Where spatialBottleneck places the expansion of a Conv whose output is `value`: `value`, or
/// the end of the chain of single-consumer BatchNormalization and elementwise ops that read it
/// (as their first input) and are not graph outputs.
std::string expansionPoint(const ir::Graph &graph, std::string value);

} // namespace nasc::nas
