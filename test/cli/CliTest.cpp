// The `nasc` command line as a user runs it: help on every verb, each inspect stage, and one
// clear error line with a non-zero exit for bad input.
#include "test/support/CliRun.h"
#include "test/support/FreshPath.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace fs = std::filesystem;

namespace {

using Result = nasc::test::CliResult;
using nasc::test::runNasc;

const std::string kModel = std::string(NASC_SOURCE_DIR) + "/models/resnet18.json";

fs::path scratch() { return nasc::test::processDir("cli"); }

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// Writes `name` in scratch(): a model of one padded 3x3 Conv "c", x [1, 4, 6, 6] -> y [1, 8, 6,
/// 6].
fs::path tinyConv(const std::string &name) {
  fs::path spec = scratch() / name;
  std::ofstream(spec) << R"({"name": "tiny", "inputs": [{"name": "x", "shape": [1, 4, 6, 6]}],
    "outputs": ["y"], "nodes": [{"name": "c", "op_type": "Conv", "inputs": ["x", "w"],
    "outputs": ["y"], "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}}],
    "initializers": [{"name": "w", "shape": [8, 4, 3, 3], "init": "he_normal", "seed": 1}]})";
  return spec;
}

} // namespace

TEST_CASE("every verb has --help describing its options", "[cli]") {
  Result top = runNasc("--help");
  CHECK(top.status == 0);
  for (const char *verb : {"compile", "run", "bench", "inspect"}) {
    INFO(verb);
    CHECK(contains(top.output, verb));
    Result help = runNasc(std::string(verb) + " --help");
    CHECK(help.status == 0);
    CHECK(contains(help.output, "MODEL"));
  }
  CHECK(contains(runNasc("compile --help").output, "--header"));
  CHECK(contains(runNasc("inspect --help").output, "--stage"));
  CHECK(contains(runNasc("inspect --help").output, "--after"));
}

TEST_CASE("inspect prints the IR of every stage for one node", "[cli]") {
  Result kernel = runNasc("inspect " + kModel + " --stage kernel --node conv1");
  REQUIRE(kernel.status == 0);
  CHECK(contains(kernel.output, "kernel "));
  CHECK(contains(kernel.output, "+="));
  Result isl = runNasc("inspect " + kModel + " --stage isl --node conv1");
  REQUIRE(isl.status == 0);
  CHECK(contains(isl.output, "domain: { "));
  CHECK(contains(isl.output, "S1[n, k0, oh, ow, k1, c0, r, s, c1]"));
  CHECK(contains(isl.output, "schedule:"));
  Result ast = runNasc("inspect " + kModel + " --stage ast --node conv1");
  REQUIRE(ast.status == 0);
  CHECK(contains(ast.output, "for (int c7 = 0; c7 <= 2; c7 += 1)"));
  Result graph = runNasc("inspect " + kModel + " --stage graph");
  REQUIRE(graph.status == 0);
  CHECK(contains(graph.output, "= Conv("));
  CHECK(contains(graph.output, "output logits: 1x1000"));
}

TEST_CASE("inspect --after prints the model as each pass left it", "[cli]") {
  const fs::path spec = tinyConv("after_conv.json");
  const std::array<std::pair<const char *, const char *>, 9> expected = {{
      {"neural-steps", "c = Conv(x, w)"},
      {"lower", "ow + s - 1 >= 0"}, // padding is still a constraint of the domain
      {"layout", "//   pad_input(S1)"},
      {"forward-blocked", "x_padded"},
      {"forward-padded", "x_padded"},
      {"scop", "domain: { "},
      {"dependences", "flow: { "},
      {"schedule", "// trace of c: "},
      {"ast", "for (int c"},
  }};
  for (const auto &[pass, marker] : expected) {
    INFO(pass);
    Result r = runNasc("inspect " + spec.string() + " --after " + pass + " --cpu x86-64-v3");
    CHECK(r.status == 0);
    CHECK(contains(r.output, marker));
  }
  CHECK_FALSE(contains(runNasc("inspect " + spec.string() + " --after lower").output, "pad_input"));
  Result unknown = runNasc("inspect " + spec.string() + " --after isl-ast");
  CHECK(unknown.status != 0);
  CHECK(contains(unknown.output, "--after: isl-ast not in {neural-steps,lower,layout,"));
  Result both = runNasc("inspect " + spec.string() + " --after ast --stage isl");
  CHECK(both.status != 0);
  CHECK(contains(both.output, "--stage excludes --after"));
}

TEST_CASE("inspect --stage llvm prints optimized LLVM IR", "[cli]") {
  Result llvm = runNasc("inspect " + kModel + " --stage llvm");
  REQUIRE(llvm.status == 0);
  CHECK(contains(llvm.output, "define void @nasc_generated_run("));
}

TEST_CASE("compile writes a shared library and a header naming the input shape", "[cli]") {
  fs::path dir = scratch();
  Result r = runNasc("compile " + kModel + " -o " + (dir / "libr18.so").string() + " --header " +
                     (dir / "r18.h").string());
  REQUIRE(r.status == 0);
  CHECK(fs::file_size(dir / "libr18.so") > 11'000'000 * 4);
  std::ifstream header(dir / "r18.h");
  std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
  CHECK(contains(text, "'input' float32 1x3x224x224"));
}

TEST_CASE("a missing model file is one error line and a non-zero exit", "[cli][error]") {
  Result r = runNasc("compile /nonexistent/model.onnx -o /tmp/x.so");
  CHECK(r.status != 0);
  CHECK(contains(r.output, "/nonexistent/model.onnx"));
}

TEST_CASE("an unsupported op is an error naming the file, node and op", "[cli][error]") {
  fs::path spec = scratch() / "bad_op.json";
  std::ofstream(spec)
      << R"({"name": "bad", "inputs": [{"name": "x", "shape": [1, 4]}], "outputs": ["y"],
    "nodes": [{"name": "act", "op_type": "Softplus", "inputs": ["x"], "outputs": ["y"]}]})";
  Result r = runNasc("run " + spec.string() + " --input x.npy --output y.npy");
  CHECK(r.status == 1);
  CHECK(contains(r.output, "nasc: error: "));
  CHECK(contains(r.output, spec.string()));
  CHECK(contains(r.output, "act"));
  CHECK(contains(r.output, "Softplus"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
}

TEST_CASE("an input of the wrong shape is an error naming the input", "[cli][error]") {
  fs::path dir = scratch();
  fs::path npy = dir / "wrong.npy";
  std::string make = "/usr/bin/python3 -c \"import numpy as np; np.save('" + npy.string() +
                     "', np.zeros((1, 3, 32, 32), np.float32))\"";
  REQUIRE(std::system(make.c_str()) == 0);
  Result r = runNasc("run " + kModel + " --input " + npy.string() + " --output " +
                     (dir / "y.npy").string());
  CHECK(r.status == 1);
  CHECK(contains(r.output, "input 'input' must have shape 1x3x224x224"));
}

TEST_CASE("an unknown input name lists the model's inputs", "[cli][error]") {
  Result r = runNasc("run " + kModel + " --input image=x.npy --output y.npy");
  CHECK(r.status == 1);
  CHECK(contains(r.output, "no input named 'image' (its inputs: input)"));
}

TEST_CASE("bench prints each kernel's median time and the whole run's latency", "[cli]") {
  fs::path spec = scratch() / "bench_net.json";
  std::ofstream(spec) << R"({"name": "benchnet", "inputs": [{"name": "x", "shape": [1, 3, 16, 16]}],
    "outputs": ["y"],
    "nodes": [
      {"name": "conv", "op_type": "Conv", "inputs": ["x", "w"], "outputs": ["c"],
       "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
      {"name": "act", "op_type": "Relu", "inputs": ["c"], "outputs": ["r"]},
      {"name": "pool", "op_type": "GlobalAveragePool", "inputs": ["r"], "outputs": ["y"]}],
    "initializers": [{"name": "w", "shape": [8, 3, 3, 3], "init": "he_normal", "seed": 1}]})";
  Result r = runNasc("bench " + spec.string() + " --repeat 3");
  REQUIRE(r.status == 0);
  CHECK(contains(r.output, "conv+act"));
  CHECK(contains(r.output, "pool"));
  CHECK(contains(r.output, "GFLOP/s"));
  CHECK(contains(r.output, "median latency: "));
  CHECK(contains(r.output, "over 3 runs"));
}

namespace {

const char *kScheduleNet =
    R"({"name": "schednet", "inputs": [{"name": "x", "shape": [1, 3, 12, 10]}],
  "outputs": ["y"],
  "nodes": [
    {"name": "conv", "op_type": "Conv", "inputs": ["x", "w"], "outputs": ["c"],
     "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
    {"name": "act", "op_type": "Relu", "inputs": ["c"], "outputs": ["y"]}],
  "initializers": [{"name": "w", "shape": [8, 3, 3, 3], "init": "he_normal", "seed": 1}]})";

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace

TEST_CASE("a library compiled on one or three threads is the same file, its code in 8 modules",
          "[cli][jobs]") {
  fs::path dir = scratch();
  for (const char *jobs : {"1", "3"})
    REQUIRE(runNasc("compile " + kModel + " -o " +
                    (dir / ("libj" + std::string(jobs) + ".so")).string() + " --jobs " + jobs)
                .status == 0);
  CHECK(readFile(dir / "libj1.so") == readFile(dir / "libj3.so"));
  // ResNet-18's 24 kernels: run and the weights, then the kernel functions, over
  // codegen::kCodegenParts = 8 modules.
  Result llvm = runNasc("inspect " + kModel + " --stage llvm -j 2");
  REQUIRE(llvm.status == 0);
  size_t modules = 0;
  for (size_t at = llvm.output.find("; ModuleID = "); at != std::string::npos;
       at = llvm.output.find("; ModuleID = ", at + 1))
    ++modules;
  CHECK(modules == 8);
}

TEST_CASE("inspect --stage schedule prints a trace that --schedule replays bit-identically",
          "[cli][schedule]") {
  fs::path dir = scratch();
  fs::path spec = dir / "schednet.json", x = dir / "sched_x.npy";
  std::ofstream(spec) << kScheduleNet;
  std::string make = "/usr/bin/python3 -c \"import numpy as np; np.save('" + x.string() +
                     "', np.random.RandomState(0).randn(1, 3, 12, 10).astype(np.float32))\"";
  REQUIRE(std::system(make.c_str()) == 0);

  Result printed = runNasc("inspect " + spec.string() + " --stage schedule");
  REQUIRE(printed.status == 0);
  CHECK(contains(printed.output, "\"nasc_schedule\": 1"));
  CHECK(contains(printed.output, R"("conv": [)"));
  CHECK(contains(printed.output,
                 R"({"primitive":"block_channels","statement":"S1","block":8,"input_block":3})"));
  CHECK(contains(printed.output,
                 R"({"primitive":"interchange","statement":"S1","order":[0,1,2,5,6,7,8,3,4]})"));
  std::ofstream(dir / "default_schedule.json") << printed.output;

  fs::path custom = dir / "custom_schedule.json";
  std::ofstream(custom) << R"({"nasc_schedule": 1, "kernels": {"act": [
    {"primitive": "tile", "statement": "S1", "sizes": [1, 4, 4]},
    {"primitive": "unroll", "statement": "S1", "member": 0, "factor": 3, "band": 2},
    {"primitive": "parallelize", "statement": "S0", "member": 1}]}})";
  std::string run = "run " + spec.string() + " --input " + x.string() + " --output ";
  REQUIRE(runNasc(run + (dir / "y_default.npy").string()).status == 0);
  REQUIRE(runNasc(run + (dir / "y_printed.npy").string() + " --schedule " +
                  (dir / "default_schedule.json").string())
              .status == 0);
  REQUIRE(
      runNasc(run + (dir / "y_custom1.npy").string() + " --schedule " + custom.string()).status ==
      0);
  REQUIRE(
      runNasc(run + (dir / "y_custom2.npy").string() + " --schedule " + custom.string()).status ==
      0);
  CHECK(readFile(dir / "y_printed.npy") == readFile(dir / "y_default.npy"));
  CHECK(readFile(dir / "y_custom1.npy") == readFile(dir / "y_custom2.npy"));

  Result replayed =
      runNasc("inspect " + spec.string() + " --stage schedule --schedule " + custom.string());
  REQUIRE(replayed.status == 0);
  CHECK(contains(replayed.output, R"("act": [)"));
  CHECK(contains(replayed.output,
                 R"({"primitive":"unroll","statement":"S1","member":0,"factor":3,"band":2})"));
  Result lib = runNasc("compile " + spec.string() + " --schedule " + custom.string() + " -o " +
                       (dir / "libsched.so").string());
  CHECK(lib.status == 0);
}

TEST_CASE("inspect --stage schedule --explain lists the default steps not applied and why",
          "[cli][schedule]") {
  // A global average pool's kernel: its init S0[n, c] has a band of 2 members, so the default
  // trace's fusion of S0, the sum S1 and the scaling S2 at depth 3 is refused.
  fs::path spec = scratch() / "explain_net.json";
  std::ofstream(spec) << R"({"name": "explainnet", "inputs": [{"name": "x", "shape": [1, 8, 6, 6]}],
    "outputs": ["y"],
    "nodes": [{"name": "gap", "op_type": "GlobalAveragePool", "inputs": ["x"], "outputs": ["y"]}]})";
  Result r = runNasc("inspect " + spec.string() + " --stage schedule --explain");
  REQUIRE(r.status == 0);
  CHECK(contains(r.output, "\"nasc_schedule\": 1"));
  CHECK(contains(r.output, "// gap: 1 default step(s) tried and not applied"));
  CHECK(contains(r.output, "//   fuse(S0, S1, S2, depth=3): "));
  CHECK(contains(r.output, "has only 2 members"));
  Result plain = runNasc("inspect " + spec.string() + " --stage schedule");
  CHECK(!contains(plain.output, "not applied"));
}

TEST_CASE("a schedule step that no longer applies is an error naming the file, node and step",
          "[cli][schedule][error]") {
  fs::path dir = scratch();
  fs::path spec = dir / "schednet.json", stale = dir / "stale_schedule.json";
  std::ofstream(spec) << kScheduleNet;
  std::ofstream(stale) << R"({"nasc_schedule": 1, "kernels": {"conv": [
    {"primitive": "split", "statement": "S1", "member": 2, "factor": 2},
    {"primitive": "split", "statement": "S1", "member": 9, "factor": 2}]}})";
  Result r = runNasc("compile " + spec.string() + " --schedule " + stale.string() + " -o " +
                     (dir / "libstale.so").string());
  CHECK(r.status == 1);
  CHECK(contains(r.output, stale.string() +
                               ": node 'conv' step 2 split(S1, member=9, factor=2, "
                               "band=0) does not apply: split of statement 'S1' member 9 by 2: the "
                               "band has 8 members (0 .. 7)"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
}

TEST_CASE("fisher measures a JSON spec model, whose shapes are inferred, not stored",
          "[cli][fisher]") {
  fs::path spec = scratch() / "fisher_net.json";
  std::ofstream(spec)
      << R"({"name": "fishernet", "inputs": [{"name": "x", "shape": [1, 1, 28, 28]}],
    "outputs": ["y"],
    "nodes": [
      {"name": "conv", "op_type": "Conv", "inputs": ["x", "w"], "outputs": ["c"],
       "attributes": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}},
      {"name": "act", "op_type": "Relu", "inputs": ["c"], "outputs": ["r"]},
      {"name": "pool", "op_type": "GlobalAveragePool", "inputs": ["r"], "outputs": ["g"]},
      {"name": "flat", "op_type": "Flatten", "inputs": ["g"], "outputs": ["f"]},
      {"name": "fc", "op_type": "Gemm", "inputs": ["f", "fw", "fb"], "outputs": ["y"],
       "attributes": {"transB": 1}}],
    "initializers": [{"name": "w", "shape": [4, 1, 3, 3], "init": "he_normal", "seed": 1},
                     {"name": "fw", "shape": [10, 4], "init": "he_normal", "seed": 2},
                     {"name": "fb", "shape": [10], "init": "zeros"}]})";
  Result r = runNasc("fisher " + spec.string() + " --batch 8 --seeds 1 --json");
  REQUIRE(r.status == 0);
  CHECK(contains(r.output, "\"total\""));
  CHECK(contains(r.output, "\"layers\": {\n  \"c\": "));
}

TEST_CASE("inspect --stage target prints the triple, CPU and vector unit --cpu chooses", "[cli]") {
  Result avx2 = runNasc("inspect " + kModel + " --stage target --cpu x86-64-v3");
  REQUIRE(avx2.status == 0);
  CHECK(contains(avx2.output, "cpu: x86-64-v3"));
  CHECK(contains(avx2.output, "vector unit: 8 x f32 (256-bit), 16 registers"));
  CHECK(contains(avx2.output, "avx2"));
  Result cross = runNasc("inspect " + kModel + " --stage target --target aarch64-linux-gnu");
  REQUIRE(cross.status == 0);
  CHECK(contains(cross.output, "triple: aarch64-unknown-linux-gnu"));
  CHECK(contains(cross.output, "vector unit: 4 x f32 (128-bit), 32 registers"));
}

TEST_CASE("an unknown --cpu is one error line naming it", "[cli][error]") {
  Result r = runNasc("compile " + kModel + " -o /tmp/never.so --cpu no-such-cpu");
  CHECK(r.status == 1);
  CHECK(contains(r.output, "nasc: error: target: unknown CPU 'no-such-cpu'"));
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK_FALSE(fs::exists("/tmp/never.so"));
}

TEST_CASE("compile --time-passes prints every phase and the total", "[cli]") {
  const fs::path spec = tinyConv("tiny_conv.json");
  Result r = runNasc("compile " + spec.string() + " -o " + (scratch() / "libtiny.so").string() +
                     " --time-passes");
  REQUIRE(r.status == 0);
  for (const char *phase :
       {"import", "dependences", "schedule", "isl AST", "LLVM O3", "object file", "link", "total"})
    CHECK(contains(r.output, phase));
}
