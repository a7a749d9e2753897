// The neural-transformation registry (compiler/nas/NeuralRegistry.h): every transformation has
// every part, its neural schedule primitive and the docs table derive from it, and its example
// step rewrites the graph and has an isl form.
#include "compiler/nas/NeuralRegistry.h"
#include "compiler/nas/ModelCost.h"
#include "compiler/transforms/Primitives.h"
#include "test/support/ConvGraph.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace {

using namespace nasc;

/// x (1, 8, 8, 8) -> Conv "conv" 8 -> 8, 3x3, pad 1 -> c -> Relu -> r -> Conv "conv2" 8 -> 8,
/// 3x3, pad 1 -> y: the graph of NeuralTransform::example.
ir::Graph twoConvs() {
  ir::Graph g = test::convGraph("two.json", {{1, 8, 8, 8}, 8}, "c");
  g.initializers["w2"] = test::uniformTensor({8, 8, 3, 3}, 7, 0.3f);
  g.nodes.push_back({"relu", "Relu", {"c"}, {"r"}, {}});
  g.nodes.push_back(
      {"conv2", "Conv", {"r", "w2"}, {"y"}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}});
  return test::prepared(g);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

TEST_CASE("every registered neural transformation has every part", "[nas][neural][registry]") {
  std::set<std::string> names;
  for (const nas::NeuralTransform &t : nas::neuralTransforms()) {
    INFO(t.name);
    CHECK(names.insert(t.name).second);
    CHECK_FALSE(t.name.empty());
    CHECK_FALSE(t.summary.empty());
    CHECK_FALSE(t.flops.empty());
    CHECK_FALSE(t.params.empty());
    CHECK_FALSE(t.refusedWhen.empty());
    CHECK(t.rewrite != nullptr);
    CHECK(t.islForm != nullptr);
    for (size_t i = 0; i + 1 < t.parameters.size(); ++i)
      CHECK_FALSE(t.parameters[i].isList);
    const bool list = !t.parameters.empty() && t.parameters.back().isList;
    CHECK(list == !t.listUsage.empty());
    CHECK(list == (t.listMax > 0));
    CHECK(t.listMin <= t.listMax);
    CHECK_NOTHROW(t.checkArgumentCount(t.example.size(), t.name));
  }
  CHECK(names == std::set<std::string>{"group", "depthwise", "bottleneck", "spatial_bottleneck",
                                       "seq1", "seq2", "seq3"});
}

TEST_CASE("each neural transformation is a neural schedule primitive with its parameters",
          "[nas][neural][registry]") {
  for (const nas::NeuralTransform &t : nas::neuralTransforms()) {
    INFO(t.name);
    const compiler::PrimitiveSpec *spec = compiler::findPrimitive(t.name);
    REQUIRE(spec != nullptr);
    CHECK(spec->neural);
    REQUIRE(spec->arguments.size() == t.parameters.size());
    for (size_t i = 0; i < t.parameters.size(); ++i) {
      CHECK(spec->arguments[i].name == t.parameters[i].name);
      CHECK(spec->arguments[i].isList == t.parameters[i].isList);
    }
  }
  size_t neural = 0;
  for (const compiler::PrimitiveSpec &spec : compiler::primitives())
    neural += spec.neural ? 1 : 0;
  CHECK(neural == nas::neuralTransforms().size());
}

TEST_CASE("each neural transformation's example rewrites the graph and has an isl form",
          "[nas][neural][registry][isl]") {
  const ir::Graph original = twoConvs();
  const nas::ModelCost before = nas::modelCost(original);
  for (const nas::NeuralTransform &t : nas::neuralTransforms()) {
    const nas::NeuralStep step{"conv", t.name, t.example};
    INFO(step.toString());
    const nas::NeuralStep parsed = nas::parseNeuralStep(step.toString());
    CHECK(parsed.transform == t.name);
    CHECK(parsed.args == t.example);
    const nas::ModelCost after = nas::modelCost(nas::applyNeuralStep(original, step));
    CHECK((after.flops != before.flops || after.params != before.params));
    poly::IslContext isl;
    const std::vector<nas::ScopRewrite> rewrites = nas::neuralIslForm(isl.get(), original, step);
    REQUIRE_FALSE(rewrites.empty());
    for (const nas::ScopRewrite &rewrite : rewrites)
      CHECK_FALSE(rewrite.after.domain.is_empty());
  }
}

TEST_CASE("the argument count of a neural step is checked when parsed and when applied",
          "[nas][neural][registry]") {
  CHECK_THROWS_WITH(nas::parseNeuralStep("c:seq1(2)"),
                    "--apply 'c:seq1(2)': seq1 takes 2 to 16 integer arguments");
  CHECK_THROWS_WITH(nas::parseNeuralStep("c:seq2(2)"),
                    "--apply 'c:seq2(2)': seq2 takes 2 integer arguments");
  CHECK_THROWS_WITH(nas::applyNeuralStep(twoConvs(), {"conv", "group", {}}),
                    "conv:group: group takes 1 integer argument");
  CHECK_THROWS_WITH(nas::applyNeuralStep(twoConvs(), {"conv", "depthwise", {2}}),
                    "conv:depthwise(2): depthwise takes 0 integer arguments");
  CHECK_THROWS_WITH(nas::applyNeuralStep(twoConvs(), {"conv", "shuffle", {2}}),
                    "conv:shuffle(2): unknown transformation 'shuffle' (known: group(G), "
                    "depthwise, bottleneck(B), spatial_bottleneck(S), seq1(G1,...,Gp), "
                    "seq2(u,G), seq3(P))");
}

TEST_CASE("docs/transformations.md holds the registry's table", "[nas][neural][registry]") {
  const std::string docs = readFile(std::string(NASC_SOURCE_DIR) + "/docs/transformations.md");
  const std::string table = std::string(NASC_BINARY_DIR) + "/neural_transformations_table.md";
  std::ofstream(table) << nas::neuralTransformTable();
  INFO("the table to paste into docs/transformations.md is in " << table);
  CHECK(docs.find(nas::neuralTransformTable()) != std::string::npos);
}

TEST_CASE("each neural transformation lists the arguments a search draws from",
          "[nas][neural][registry][search]") {
  const ir::Graph graph = twoConvs();
  const nas::ConvLayer conv = nas::convLayer(graph, "conv", "choices");
  // Conv 8 -> 8, 3x3, output 8x8, group 1: the lists the rules of NeuralRegistry.h give, by hand.
  const std::map<std::string, std::vector<std::vector<int64_t>>> expected{
      {"group", {{2}, {4}}},
      {"depthwise", {{}}},
      {"bottleneck", {{2}, {4}}},
      {"spatial_bottleneck", {{2}, {4}}},
      {"seq1", {{1, 2}, {1, 4}, {2, 4}}},
      {"seq2", {{4, 2}, {4, 4}}},
      {"seq3", {{2}, {4}}}};
  for (const nas::NeuralTransform &t : nas::neuralTransforms()) {
    INFO(t.name);
    REQUIRE(t.choices != nullptr);
    const std::vector<std::vector<int64_t>> lists = t.choices(graph, conv);
    CHECK(lists == expected.at(t.name));
    for (const std::vector<int64_t> &args : lists)
      CHECK_NOTHROW(nas::applyNeuralStep(graph, {"conv", t.name, args}));
  }
}

TEST_CASE("a stem Conv of 3 input channels offers no grouping", "[nas][neural][registry][search]") {
  const ir::Graph graph = test::prepared(test::convGraph("stem.json", {{1, 3, 8, 8}, 16}, "y"));
  const nas::ConvLayer conv = nas::convLayer(graph, "conv", "choices");
  for (const char *name : {"group", "depthwise", "seq1", "seq2"}) {
    INFO(name);
    CHECK(nas::findNeuralTransform(name, "test").choices(graph, conv).empty());
  }
  CHECK(nas::findNeuralTransform("bottleneck", "test").choices(graph, conv) ==
        std::vector<std::vector<int64_t>>{{2}, {4}, {8}});
}
