// The neural-transformation registry: one definition per transformation (name, parameters,
// structural refusals, graph rewrite, isl form, FLOP / parameter effect). The step parser and
// applyNeuralStep (NeuralStep.h), the neural schedule primitives (compiler/transforms/
// Primitives.cpp), `nasc mutate --apply / --show-isl` and the table of docs/transformations.md
// all derive from it.
#pragma once

#include "compiler/nas/ConvLayer.h"
#include "compiler/nas/NeuralScop.h"
#include "compiler/nas/NeuralStep.h"
#include "compiler/transforms/Primitives.h"
#include "ir/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nasc::nas {

/// One neural transformation of a Conv (Turner et al., ASPLOS 2021, §4). Each is defined in the
/// file of its graph rewrite (Group.cpp: group, depthwise; Bottleneck.cpp; Seq.cpp: seq1, seq2;
/// Seq3.cpp; SpatialBottleneck.cpp) and listed once, in NeuralRegistry.cpp.
struct NeuralTransform {
  std::string name; ///< As steps and traces write it: "group".
  /// The parameters in order, named as schedule traces name them (docs/schedules.md). At most
  /// the last is a list (seq1's `groups`), which takes the remaining integers.
  std::vector<compiler::ArgumentSpec> parameters;
  /// How many integers the list parameter takes, and how a step writes them ("G1,...,Gp").
  size_t listMin = 0, listMax = 0;
  std::string listUsage;
  std::string summary;     ///< What it computes, one sentence for the docs table.
  std::string flops;       ///< Its effect on the Conv's FLOP, e.g. "÷ G".
  std::string params;      ///< Its effect on the parameters, e.g. "W ÷ G".
  std::string refusedWhen; ///< The structural refusals of `rewrite`, for the docs table.
  /// Arguments of a step it accepts on the first Conv of x (1, 8, 8, 8) -> Conv 8 -> 8, 3x3,
  /// pad 1 -> Relu -> Conv 8 -> 8, 3x3, pad 1 (the registry's test applies it).
  std::vector<int64_t> example;
  /// The argument lists a search draws from for the Conv `conv` of `graph` (static shapes): the
  /// values its arithmetic conditions allow (divisors of the channels, factors that divide the
  /// output extents), a few per parameter; empty when none applies. Structural refusals that
  /// depend on the consumers (bottleneck's) are still `rewrite`'s to raise.
  std::vector<std::vector<int64_t>> (*choices)(const ir::Graph &graph,
                                               const ConvLayer &conv) = nullptr;
  /// Applies `step` (its argument count already checked) to `graph`; shapes are inferred again
  /// by applyNeuralStep. Throws RefusedTransformation for a structural refusal, before changing
  /// anything, and nasc::Error when the node is not a Conv with initializer weights.
  void (*rewrite)(ir::Graph &graph, const NeuralStep &step) = nullptr;
  /// The isl form of `step` on `graph` (static shapes, the Conv of group 1): the statements it
  /// rewrites or adds, before and after, each checked with checkInsideTensors. Throws the
  /// refusals of `rewrite`, and nasc::Error when the Conv has no dense reduction statement.
  std::vector<ScopRewrite> (*islForm)(isl::ctx ctx, const ir::Graph &graph,
                                      const NeuralStep &step) = nullptr;

  /// How a step writes it: "group(G)", "depthwise", "seq1(G1,...,Gp)".
  std::string usage() const;
  /// The integer arguments it takes: "1 integer argument", "2 to 16 integer arguments".
  std::string arity() const;
  /// Checks that it takes `count` integer arguments. Throws nasc::Error "<context>: NAME takes
  /// <arity>" otherwise.
  void checkArgumentCount(size_t count, const std::string &context) const;
};

/// A scalar parameter named `name` (no default).
compiler::ArgumentSpec scalarParameter(const std::string &name);

/// A list parameter named `name`.
compiler::ArgumentSpec listParameter(const std::string &name);

/// Every neural transformation, in the order of the docs table and of the neural primitives.
const std::vector<NeuralTransform> &neuralTransforms();

/// The transformation named `name`. Throws nasc::Error quoting `context` (e.g. "--apply
/// 'c:shuffle(2)'") and listing the known ones when there is none.
const NeuralTransform &findNeuralTransform(const std::string &name, const std::string &context);

/// The isl form of `step` on `graph` (its transformation's islForm), or none when the Conv is
/// already grouped (its reduction statement is over kg and cg, not a dense k and c). Throws
/// nasc::Error for an unknown transformation or node, and the errors of islForm.
std::vector<ScopRewrite> neuralIslForm(isl::ctx ctx, const ir::Graph &graph,
                                       const NeuralStep &step);

/// The Markdown table of the transformations (step, trace arguments, what it computes, FLOP,
/// parameters, refused when), as docs/transformations.md holds it.
std::string neuralTransformTable();

} // namespace nasc::nas
