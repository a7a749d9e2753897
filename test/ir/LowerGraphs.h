// Test helpers for the lowering: small graphs built by hand (one node or a short chain).
#pragma once

#include "ir/Graph.h"

#include <map>
#include <string>
#include <vector>

namespace nasc::lowertest {

/// Declares value `name` of `shape` (float32) in `g`.
void addValue(ir::Graph &g, const std::string &name, const ir::Shape &shape);

/// Adds a float32 initializer `name` of `shape` with values 0.1·((k·7 + salt) mod 11) − 0.5.
void addInitializer(ir::Graph &g, const std::string &name, const ir::Shape &shape, int salt = 0);

/// Appends node `name` of `opType` on `inputs` / `outputs` with `attributes`.
void addNode(ir::Graph &g, const std::string &name, const std::string &opType,
             std::vector<std::string> inputs, std::vector<std::string> outputs,
             std::map<std::string, ir::Attribute> attributes = {});

/// A graph with input `x` of `xShape` and output `y` of `yShape`, running one node `opType`
/// named "op" on x (and `extraInputs`, declared by the caller) into y.
ir::Graph oneNodeGraph(const std::string &opType, const ir::Shape &xShape, const ir::Shape &yShape,
                       std::map<std::string, ir::Attribute> attributes = {},
                       std::vector<std::string> extraInputs = {});

} // namespace nasc::lowertest
