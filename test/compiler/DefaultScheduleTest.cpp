// Correctness of the default schedule end to end: a small CNN (padded, strided and grouped
// convolutions, residual add, max pool, global average pool, Gemm) JIT-compiled through
// lowerToPolyhedral, whose reduction loops defaultSchedule reorders, equals the Eigen
// reference executor.
#include "test/support/ScheduleRun.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace nasc;

namespace {

const char *kConvNet = R"({
  "name": "schednet",
  "inputs": [{"name": "x", "shape": [2, 4, 9, 8]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "conv1", "op_type": "Conv", "inputs": ["x", "w1", "b1"], "outputs": ["c1"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "relu1", "op_type": "Relu", "inputs": ["c1"], "outputs": ["r1"]},
    {"name": "conv2", "op_type": "Conv", "inputs": ["r1", "w2"], "outputs": ["c2"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "group": 2}},
    {"name": "add", "op_type": "Add", "inputs": ["c2", "r1"], "outputs": ["a"]},
    {"name": "relu2", "op_type": "Relu", "inputs": ["a"], "outputs": ["r2"]},
    {"name": "pool", "op_type": "MaxPool", "inputs": ["r2"], "outputs": ["p"],
     "attributes": {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}},
    {"name": "conv3", "op_type": "Conv", "inputs": ["p", "w3", "b3"], "outputs": ["c3"],
     "attributes": {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [0, 1, 1, 0]}},
    {"name": "gap", "op_type": "GlobalAveragePool", "inputs": ["c3"], "outputs": ["g"]},
    {"name": "flat", "op_type": "Flatten", "inputs": ["g"], "outputs": ["f"]},
    {"name": "fc", "op_type": "Gemm", "inputs": ["f", "wf", "bf"], "outputs": ["y"],
     "attributes": {"transB": 1}}
  ],
  "initializers": [
    {"name": "w1", "shape": [6, 4, 3, 3], "init": "he_normal", "seed": 1},
    {"name": "b1", "shape": [6], "init": "he_normal", "seed": 2},
    {"name": "w2", "shape": [6, 3, 3, 3], "init": "he_normal", "seed": 3},
    {"name": "w3", "shape": [5, 6, 3, 2], "init": "he_normal", "seed": 4},
    {"name": "b3", "shape": [5], "init": "he_normal", "seed": 5},
    {"name": "wf", "shape": [3, 5], "init": "he_normal", "seed": 6},
    {"name": "bf", "shape": [3], "init": "he_normal", "seed": 7}
  ]
})";

/// The schedule time of the single instance `point` (e.g. "{ S1[0, 0, 1, 1, 0, 1, 1] }").
isl::set timeOf(const isl::union_map &schedule, const std::string &point) {
  isl::union_set time = isl::union_set(schedule.ctx(), point).apply(schedule);
  return isl::manage(isl_set_from_union_set(time.release()));
}

bool before(const isl::set &a, const isl::set &b) {
  return !isl::manage(isl_set_lex_lt_set(a.copy(), b.copy())).is_empty();
}

} // namespace

TEST_CASE("lowerToPolyhedral runs a conv's channel loop c outside its output column loop ow",
          "[default-schedule]") {
  compiler::PolyhedralModel model =
      compiler::lowerToPolyhedral(ir::loadModel(test::writeModel("schednet", kConvNet).string()));
  const auto &calls = model.program.calls;
  auto conv1 = std::find_if(calls.begin(), calls.end(), [](const ir::KernelCall &call) {
    return std::find(call.nodes.begin(), call.nodes.end(), "conv1") != call.nodes.end();
  });
  REQUIRE(conv1 != calls.end());
  const std::vector<ir::Statement> &statements = conv1->kernel.statements;
  auto s1 = std::find_if(statements.begin(), statements.end(),
                         [](const ir::Statement &st) { return st.name == "S1"; });
  REQUIRE(s1 != statements.end());
  REQUIRE(s1->iterators == std::vector<std::string>{"n", "k", "oh", "ow", "c", "r", "s"});
  isl::union_map schedule =
      model.kernels.at(static_cast<size_t>(conv1 - calls.begin())).scop->schedule.get_map();
  isl::set columnOneChannelZero = timeOf(schedule, "{ S1[0, 0, 1, 1, 0, 1, 1] }");
  isl::set columnZeroChannelOne = timeOf(schedule, "{ S1[0, 0, 1, 0, 1, 1, 1] }");
  CHECK(before(columnOneChannelZero, columnZeroChannelOne));
}

TEST_CASE("a conv net JIT-compiled with the default schedule equals the reference executor",
          "[default-schedule][jit]") {
  std::string path = test::writeModel("schednet", kConvNet).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path));
  CHECK(test::referenceError(std::move(model), path, 1, 7) <= 1e-4);
}

namespace {

/// x [1, c, h, w] -> GlobalAveragePool -> Flatten -> Gemm (k outputs, bias) -> y.
std::string poolGemmModel(const std::string &name, int64_t c, int64_t h, int64_t w, int64_t k) {
  auto str = [](int64_t v) { return std::to_string(v); };
  return R"({"name": ")" + name + R"(", "inputs": [{"name": "x", "shape": [1, )" + str(c) + ", " +
         str(h) + ", " + str(w) + R"(]}],
    "outputs": ["y"], "nodes": [
      {"name": "gap", "op_type": "GlobalAveragePool", "inputs": ["x"], "outputs": ["g"]},
      {"name": "flat", "op_type": "Flatten", "inputs": ["g"], "outputs": ["f"]},
      {"name": "fc", "op_type": "Gemm", "inputs": ["f", "w", "b"], "outputs": ["y"],
       "attributes": {"transB": 1}}],
    "initializers": [{"name": "w", "shape": [)" +
         str(k) + ", " + str(c) + R"(], "init": "he_normal", "seed": 1},
                     {"name": "b", "shape": [)" +
         str(k) + R"(], "init": "he_normal", "seed": 2}]})";
}

/// The "// parallel" marks in the ASTs of `model`'s kernels; each must be on an outermost loop
/// (no parallel loop under another loop, a reduction loop in particular).
int outermostParallelMarks(const compiler::PolyhedralModel &model) {
  int marks = 0;
  for (size_t c = 0; c < model.kernels.size(); ++c) {
    std::string ast = poly::astToString(*model.kernels[c].ast);
    INFO(model.program.calls[c].kernel.name << ":\n" << ast);
    for (size_t at = ast.find("// parallel"); at != std::string::npos;
         at = ast.find("// parallel", at + 1), ++marks)
      CHECK((at == 0 || ast.compare(at - 3, 3, "\n  ") == 0));
  }
  return marks;
}

} // namespace

TEST_CASE("the default schedule starts no thread team inside a reduction loop",
          "[default-schedule]") {
  // Batch 1: a Gemm's output loop k runs inside its reduction loop c (the vector loop is k), and
  // a global average pool's channel loop inside its h and w loops. Parallelizing them would
  // fork once per c (512 times for ResNet-18's fc); no parallel loop is under a reduction loop.
  // Both sums have 65,536 x 2 instances, over kMinParallelInstances (65,536), so only the
  // reduction rule keeps them serial. The pool's zeroing and scaling and Flatten's copy (65,536
  // instances each) get a parallel loop, the Gemm's bias (2 instances) none.
  std::string path = test::writeModel("gemmgap", poolGemmModel("gemmgap", 65536, 2, 1, 2)).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path));
  CHECK(outermostParallelMarks(model) == 3);
  CHECK(test::referenceError(std::move(model), path, 2, 7) <= 1e-5);
}

TEST_CASE("the default schedule runs a kernel of fewer than 65,536 instances on one thread",
          "[default-schedule]") {
  // The pool: 4 x 3 x 3 + 2 x 4 instances; the Gemm: 6 x 4 + 6 (CIFAR ResNet's fc: 5,130).
  std::string path =
      test::writeModel("gemmgapsmall", poolGemmModel("gemmgapsmall", 4, 3, 3, 6)).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path));
  CHECK(outermostParallelMarks(model) == 0);
  CHECK(test::referenceError(std::move(model), path, 2, 7) <= 1e-5);
}

namespace {

/// x [1, c, h, w] -> Conv (k output channels, `window` x `window`, padding window / 2, stride
/// `stride`, `group`, bias) -> Relu -> y, weights he_normal.
std::string convReluModel(const std::string &name, int64_t c, int64_t h, int64_t w, int64_t k,
                          int64_t window, int64_t stride, int64_t group) {
  auto str = [](int64_t v) { return std::to_string(v); };
  const std::string pad = str(window / 2);
  return R"({"name": ")" + name + R"(", "inputs": [{"name": "x", "shape": [1, )" + str(c) + ", " +
         str(h) + ", " + str(w) + R"(]}], "outputs": ["y"], "nodes": [
      {"name": "conv", "op_type": "Conv", "inputs": ["x", "w", "b"], "outputs": ["c"],
       "attributes": {"kernel_shape": [)" +
         str(window) + ", " + str(window) + R"(], "strides": [)" + str(stride) + ", " +
         str(stride) + R"(], "pads": [)" + pad + ", " + pad + ", " + pad + ", " + pad +
         R"(], "group": )" + str(group) + R"(}},
      {"name": "relu", "op_type": "Relu", "inputs": ["c"], "outputs": ["y"]}],
    "initializers": [
      {"name": "w", "shape": [)" +
         str(k) + ", " + str(c / group) + ", " + str(window) + ", " + str(window) +
         R"(], "init": "he_normal", "seed": 3},
      {"name": "b", "shape": [)" +
         str(k) + R"(], "init": "he_normal", "seed": 4}]})";
}

/// The default trace of `json`'s conv kernel for a machine with `unit`, as a schedule file, and
/// the model's error against the reference executor with 2 threads.
std::pair<std::string, double>
defaultTraceAndError(const std::string &name, const std::string &json, codegen::VectorUnit unit) {
  const std::string path = test::writeModel(name, json).string();
  compiler::PolyhedralModel model = compiler::lowerToPolyhedral(ir::loadModel(path), {}, unit);
  std::string trace = compiler::scheduleToJson(model.schedule());
  return {trace, test::referenceError(std::move(model), path, 2, 9)};
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("the default trace keeps a 1x1 conv whose rows are whole vectors in NCHW, tiled "
          "output channels x vectors of columns, with its bias and ReLU fused into its rows",
          "[default-schedule][jit]") {
  // S1[n, k, oh, ow, c, r, s] of a 1x1 conv, 16 output channels, 32 columns. AVX2 (8 lanes, 16
  // registers): 4 vectors per row, 2 of them per tile (the largest divisor of 4 up to 3); 16 -
  // 2 - 1 = 13 registers leave 13 / 2 = 6 accumulator rows, 4 the largest divisor of 16.
  const std::string json = convReluModel("pointwise", 8, 3, 32, 16, 1, 1, 1);
  auto [trace, error] = defaultTraceAndError("pointwise", json, {8, 16});
  INFO(trace);
  CHECK(!has(trace, "block_channels"));
  CHECK(has(trace, R"({"primitive":"split","statement":"S1","member":1,"factor":4,"band":0})"));
  CHECK(has(trace, R"({"primitive":"split","statement":"S1","member":4,"factor":16,"band":0})"));
  CHECK(has(trace, R"({"primitive":"split","statement":"S1","member":5,"factor":8,"band":0})"));
  // (n, oh, k0, ow0, c, r, s, k1, ow1, ow2): the row loop outside the channel groups.
  CHECK(has(trace, R"("order":[0,3,1,4,7,8,9,2,5,6])"));
  CHECK(has(trace, R"({"primitive":"fuse","statements":["S0","S1","S2"],"depth":3})"));
  CHECK(error <= 1e-5);
  // AVX-512 (16 lanes, 32 registers): 2 vectors per row, both in the tile, 8 rows.
  auto [wide, wideError] = defaultTraceAndError("pointwise16", json, {16, 32});
  INFO(wide);
  CHECK(!has(wide, "block_channels"));
  CHECK(has(wide, R"({"primitive":"split","statement":"S1","member":1,"factor":8,"band":0})"));
  CHECK(wideError <= 1e-5);
}

TEST_CASE("the default trace keeps a 1x1 conv in NCHW with a one-vector tile when its output "
          "channels fit one vector, at most 8 channel rows, and blocks wider ones",
          "[default-schedule][jit]") {
  // 40 columns are 5 vectors of 8 (AVX2), which no 2 or 3 divides: 8 output channels stay NCHW
  // with a tile of 1 vector by all 8 rows (16 - 1 - 1 = 14 accumulators): ow (member 3) split
  // by 8, k (member 1, unsplit) unrolled in (n, oh, ow0, c, r, s, k, ow1); 16 output channels
  // (two blocks of 8, ResNet-50's case) are blocked.
  auto [narrow, narrowError] =
      defaultTraceAndError("pwodd", convReluModel("pwodd", 8, 3, 40, 8, 1, 1, 1), {8, 16});
  INFO(narrow);
  CHECK(!has(narrow, "block_channels"));
  CHECK(has(narrow, R"({"primitive":"split","statement":"S1","member":3,"factor":8,"band":0})"));
  CHECK(has(narrow, R"("order":[0,2,3,5,6,7,1,4])"));
  CHECK(has(narrow, R"({"primitive":"unroll","statement":"S1","member":6,"factor":8,"band":0})"));
  CHECK(narrowError <= 1e-5);
  auto [wide, wideError] =
      defaultTraceAndError("pwodd16", convReluModel("pwodd16", 8, 3, 40, 16, 1, 1, 1), {8, 16});
  INFO(wide);
  CHECK(has(wide, "block_channels"));
  CHECK(wideError <= 1e-5);
  // AVX-512 (16 lanes, 32 registers), 80 columns (5 vectors), 16 output channels: NCHW; the
  // 29 accumulators would allow 16 rows, kMaxNchwTileRows keeps 8.
  auto [avx512, avx512Error] =
      defaultTraceAndError("pwodd512", convReluModel("pwodd512", 8, 3, 80, 16, 1, 1, 1), {16, 32});
  INFO(avx512);
  CHECK(!has(avx512, "block_channels"));
  CHECK(has(avx512, R"({"primitive":"split","statement":"S1","member":1,"factor":8,"band":0})"));
  CHECK(has(avx512, R"({"primitive":"split","statement":"S1","member":4,"factor":16,"band":0})"));
  CHECK(avx512Error <= 1e-5);
}

TEST_CASE("the default trace keeps a depthwise conv whose rows are whole vectors in NCHW and "
          "blocks the others",
          "[default-schedule][jit]") {
  // Depthwise 3x3, padding 1, 32 columns: vectorized along ow, the whole row (4 vectors of 8)
  // in the tile.
  auto [trace, error] =
      defaultTraceAndError("dwnchw", convReluModel("dwnchw", 8, 5, 32, 8, 3, 1, 8), {8, 16});
  INFO(trace);
  CHECK(has(trace, "pad_input"));
  CHECK(!has(trace, "block_channels"));
  CHECK(has(trace, R"({"primitive":"split","statement":"S1","member":4,"factor":8,"band":0})"));
  CHECK(error <= 1e-5);
  // A row of one vector (8 columns), a strided conv and a 3x3 dense one are blocked.
  for (const auto &[name, json] :
       {std::pair{"dwnarrow", convReluModel("dwnarrow", 8, 5, 8, 8, 3, 1, 8)},
        std::pair{"pwstrided", convReluModel("pwstrided", 8, 6, 32, 16, 1, 2, 1)},
        std::pair{"dense3", convReluModel("dense3", 8, 4, 32, 16, 3, 1, 1)}}) {
    auto [blocked, blockedError] = defaultTraceAndError(name, json, {8, 16});
    INFO(name << ": " << blocked);
    CHECK(has(blocked, "block_channels"));
    CHECK(blockedError <= 1e-5);
  }
}

TEST_CASE("the default trace keeps a grouped conv whose groups fill part of a vector in NCHW, "
          "tiled output channels x the row's vectors, the last one partial",
          "[default-schedule][jit]") {
  // Group 2 of 16 channels: 8 output channels per group, half an AVX-512 vector. 56 columns are
  // 3.5 vectors of 16: ow (member 4 after kg, member 2, is split by 4) split by 16 into 4
  // unrolled vectors, the last of 8 lanes; 32 - 4 - 1 registers leave 16 accumulators, 4 rows
  // of the 4 vectors: kg split by 4. (n, g, oh, kg0, cg, r, s, kg1, ow0, ow1).
  const std::string json = convReluModel("groupnchw", 16, 3, 56, 16, 3, 1, 2);
  auto [trace, error] = defaultTraceAndError("groupnchw", json, {16, 32});
  INFO(trace);
  CHECK(!has(trace, "block_channels"));
  CHECK(has(trace, R"({"primitive":"split","statement":"S1","member":2,"factor":4,"band":0})"));
  CHECK(has(trace, R"({"primitive":"split","statement":"S1","member":5,"factor":16,"band":0})"));
  CHECK(has(trace, R"("order":[0,1,4,2,7,8,9,3,5,6])"));
  CHECK(has(trace, R"({"primitive":"unroll","statement":"S1","member":7,"factor":4,"band":0})"));
  CHECK(has(trace, R"({"primitive":"unroll","statement":"S1","member":8,"factor":4,"band":0})"));
  // The bias S0 and the ReLU S2 write O[n, k, oh, ow], the conv O[n, 8g + kg, oh, ow]: k split
  // by 8 gives g's loop, and all three fuse at (n, g) (oh's loop lies inside kg's split part).
  CHECK(has(trace, R"({"primitive":"split","statement":"S0","member":1,"factor":8,"band":0})"));
  CHECK(has(trace, R"({"primitive":"split","statement":"S2","member":1,"factor":8,"band":0})"));
  CHECK(has(trace, R"("S0","S1","S2"],"depth":2})"));
  CHECK(error <= 1e-5);
  // Blocked: 8 channels per group fill an AVX2 vector; a remainder of 12 lanes (28 columns on
  // AVX-512); 4 channels per group at 56 columns on AVX2, 7 vectors, whose tile (4 rows of the
  // one vector dividing 7 up to kMaxRowVectors) holds 4 accumulators, fewer than 8.
  for (const auto &[name, json, unit] :
       {std::tuple{"groupavx2", json, codegen::VectorUnit{8, 16}},
        std::tuple{"group28", convReluModel("group28", 16, 3, 28, 16, 3, 1, 2),
                   codegen::VectorUnit{16, 32}},
        std::tuple{"group4avx2", convReluModel("group4avx2", 16, 3, 56, 16, 3, 1, 4),
                   codegen::VectorUnit{8, 16}}}) {
    auto [blocked, blockedError] = defaultTraceAndError(name, json, unit);
    INFO(name << ": " << blocked);
    CHECK(has(blocked, "block_channels"));
    CHECK(blockedError <= 1e-5);
  }
}

TEST_CASE("the default trace fuses a blocked conv's bias, ReLU and copy-out into the rows of "
          "its register tile",
          "[default-schedule][jit]") {
  // 32 output channels in 4 blocks of 8 on AVX2: the tile holds 2 blocks (k0 split by 2) by 4
  // columns, so the bias S0, the ReLU S2 and the copy-out P8 get k0 split by 2 and the order
  // (n, k0 outer, oh, ...) before fusing at depth 3.
  auto [trace, error] =
      defaultTraceAndError("fusedrows", convReluModel("fusedrows", 8, 4, 8, 32, 3, 1, 1), {8, 16});
  INFO(trace);
  CHECK(has(trace, R"({"primitive":"split","statement":"S1","member":1,"factor":2,"band":0})"));
  CHECK(has(trace, R"({"primitive":"split","statement":"S0","member":1,"factor":2,"band":0})"));
  CHECK(has(trace, R"({"primitive":"split","statement":"S2","member":1,"factor":2,"band":0})"));
  CHECK(has(trace, R"({"primitive":"fuse","statements":["S0","S1","S2","P8"],"depth":3})"));
  CHECK(error <= 1e-5);
}

TEST_CASE("the default trace leaves a conv's small halo fills on one thread and parallelizes "
          "the conv",
          "[default-schedule][jit]") {
  // 16 channels at 32x32 -> 32, 3x3 pad 1, on AVX2 (8 lanes): the halo fills of the padded
  // input (2 blocks x (2 x 34 + 2 x 32) x 8 = 2,112 instances) and the copy into it (16,384)
  // stay serial; the conv (32 x 32 x 32 x 16 x 9, fused with its bias and ReLU) is parallel.
  auto [trace, error] = defaultTraceAndError(
      "smallfills", convReluModel("smallfills", 16, 32, 32, 32, 3, 1, 1), {8, 16});
  INFO(trace);
  CHECK_FALSE(has(trace, R"({"primitive":"parallelize","statement":"P)"));
  CHECK(has(trace, R"({"primitive":"parallelize","statement":"S0","member":1,"band":0})"));
  CHECK(error <= 1e-5);
}
