// What the in-memory gate reuses between the original and its candidates must not change a value:
// He-normal draws from a HeNormalCache, seeds measured on several threads.
#include "compiler/nas/FisherMeasurement.h"
#include "compiler/nas/InitWeights.h"
#include "test/support/SmallCnn.h"

#include <catch2/catch.hpp>

namespace {

using namespace nasc;

/// x -> Conv a (8 <- 3, 3x3) -> Conv b (`width` <- 8, 3x3) -> Gemm fc: the second conv is the
/// layer a candidate changes.
ir::Graph twoConvs(int64_t width) {
  ir::Graph g;
  g.source = "reuse";
  g.inputs = {"x"};
  g.outputs = {"y"};
  g.initializers["a"] = ir::Tensor::zeros({8, 3, 3, 3});
  g.initializers["b"] = ir::Tensor::zeros({width, 8, 3, 3});
  g.initializers["fc"] = ir::Tensor::zeros({10, width});
  g.nodes = {{"ca", "Conv", {"x", "a"}, {"c"}, {}},
             {"cb", "Conv", {"c", "b"}, {"d"}, {}},
             {"fc", "Gemm", {"d", "fc"}, {"y"}, {{"transB", int64_t{1}}}}};
  return g;
}

} // namespace

TEST_CASE("initWeights through a HeNormalCache draws the same values; a frozen cache only reads",
          "[nas][gate]") {
  ir::Graph plain = twoConvs(16), cached = twoConvs(16);
  nas::initWeights(plain, 7);
  nas::HeNormalCache cache;
  nas::initWeights(cached, 7, &cache);
  for (const char *name : {"a", "b", "fc"})
    CHECK(cached.initializers.at(name).f == plain.initializers.at(name).f);
  cache.freeze();

  ir::Graph candidate = twoConvs(4), expected = twoConvs(4);
  nas::initWeights(candidate, 7, &cache);
  nas::initWeights(expected, 7);
  for (const char *name : {"a", "b", "fc"})
    CHECK(candidate.initializers.at(name).f == expected.initializers.at(name).f);
  // Keys: (seed + 0x9E3779B97F4A7C15 · k for the k-th tensor, count, fan). Conv b of width 4
  // (fan_out 4 · 9) was drawn, not added: only a, b and fc of width 16 are in.
  std::vector<float> values;
  int found = 0;
  for (uint64_t k = 1; k <= 3; ++k)
    for (const auto &[count, fan] : {std::pair<size_t, int64_t>{8 * 3 * 9, 8 * 9},
                                     {16 * 8 * 9, 16 * 9},
                                     {4 * 8 * 9, 4 * 9},
                                     {10 * 16, 16},
                                     {10 * 4, 4}})
      found += cache.find({7 + 0x9E3779B97F4A7C15ull * k, count, fan}, values) ? 1 : 0;
  CHECK(found == 3);
}

TEST_CASE("measureFisher gives the same values on one thread and on several", "[nas][gate]") {
  const ir::Graph graph =
      nas::loadForTraining(test::writeSmallCnn("gate_reuse_threads", {8, 8, 1, 16, 10}));
  nas::FisherOptions options;
  options.batch = 8;
  options.seeds = 3;
  for (nas::Proxy proxy : {nas::Proxy::Fisher, nas::Proxy::Synflow}) {
    options.proxy = proxy;
    options.threads = 1;
    const nas::FisherMeasurement one = nas::measureFisher(graph, options);
    options.threads = 3;
    const nas::FisherMeasurement three = nas::measureFisher(graph, options);
    CHECK(three.totals == one.totals);
    CHECK(three.layers == one.layers);
  }
  options.threads = 0;
  CHECK_THROWS_WITH(nas::measureFisher(graph, options), Catch::Contains("--threads"));
}
