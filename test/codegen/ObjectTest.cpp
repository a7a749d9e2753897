// Object files: GeneratedCode::writeObjects output links into a shared library that runs
// correctly.
#include "CodegenTestSupport.h"
#include "EigenReference.h"
#include "TestKernels.h"
#include "codegen/GeneratedCode.h"
#include "ir/Error.h"
#include "polyhedral/Scop.h"

#include <catch2/catch.hpp>
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace nasc;
using namespace nasc::test;
using Kind = ir::BufferKind;

namespace {

/// Compiles `program` (one kernel, so one part) for the host and writes it as an object file
/// to `<stem>0.o`.
void writeProgramObject(const ir::Program &program, const std::string &prefix,
                        const std::string &stem) {
  poly::IslContext isl;
  std::vector<isl::ast_node> asts;
  for (const ir::KernelCall &call : program.calls)
    asts.push_back(poly::generateAst(poly::buildScop(isl.get(), call.kernel)));
  codegen::GeneratedCode code(program, asts, prefix, codegen::resolveTarget());
  REQUIRE(code.writeObjects(stem) == std::vector<std::string>{stem + "0.o"});
}

bool startsWithElfMagic(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

} // namespace

TEST_CASE(
    "An object file from GeneratedCode::writeObjects links into a .so whose run matches Eigen",
    "[codegen][object]") {
  ConvShape shape;
  ir::Program program = singleKernelProgram(
      conv2dBias(shape, false), {Kind::Input, Kind::Constant, Kind::Constant, Kind::Output},
      {randomValues(shape.k * shape.c * shape.r * shape.s, 21), randomValues(shape.k, 22)});
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "nasc_codegen_object_test";
  std::filesystem::create_directories(dir);
  std::string object = (dir / "conv0.o").string(), library = (dir / "libconv.so").string();
  writeProgramObject(program, "objtest_", (dir / "conv").string());
  REQUIRE(startsWithElfMagic(object));
  REQUIRE(std::system(("cc -shared -o " + library + " " + object).c_str()) == 0);

  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(handle != nullptr);
  auto run = reinterpret_cast<RunFunction>(dlsym(handle, "objtest_run"));
  auto *bytes = static_cast<const int64_t *>(dlsym(handle, "objtest_workspace_bytes"));
  REQUIRE(run != nullptr);
  REQUIRE(bytes != nullptr);
  CHECK(*bytes == 0);

  std::vector<float> input = randomValues(shape.n * shape.c * shape.h * shape.w, 23);
  std::vector<float> output(shape.n * shape.k * shape.oh() * shape.ow());
  const float *inputs[] = {input.data()};
  float *outputs[] = {output.data()};
  run(inputs, outputs, nullptr, 1);
  requireClose(output,
               eigenConv2dBias(input, program.buffers[1].data.f, program.buffers[2].data.f, shape));
  dlclose(handle);
}

TEST_CASE("A cross target machine for aarch64 emits an AArch64 ELF object", "[codegen][object]") {
  ir::Program program =
      singleKernelProgram(gemmWithInit(4, 8, 4), {Kind::Input, Kind::Input, Kind::Output});
  poly::IslContext isl;
  std::vector<isl::ast_node> asts = {
      poly::generateAst(poly::buildScop(isl.get(), program.calls[0].kernel))};
  codegen::GeneratedCode code(program, asts, "cross_", codegen::resolveTarget("aarch64-linux-gnu"));
  std::filesystem::path stem = std::filesystem::temp_directory_path() / "nasc_codegen_cross_test";
  const std::vector<std::string> paths = code.writeObjects(stem.string());
  REQUIRE(paths.size() == 1);
  std::ifstream in(paths[0], std::ios::binary);
  unsigned char header[20] = {};
  in.read(reinterpret_cast<char *>(header), sizeof header);
  REQUIRE(header[0] == 0x7f);
  const unsigned elfMachineAArch64 = 183;
  CHECK((header[18] | header[19] << 8) == elfMachineAArch64);
}
