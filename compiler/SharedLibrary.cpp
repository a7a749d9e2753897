#include "compiler/SharedLibrary.h"

#include "compiler/LibraryAbi.h"
#include "compiler/LinkCompiler.h"
#include "ir/Error.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

extern char **environ;

namespace nasc::compiler {

namespace {

namespace fs = std::filesystem;

void writeText(const fs::path &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  if (!out)
    throw Error(path.string() + ": cannot write file");
}

std::string joined(const std::vector<std::string> &args) {
  std::string s;
  for (const auto &a : args)
    s += (s.empty() ? "" : " ") + a;
  return s;
}

void runCommand(const std::vector<std::string> &args) {
  std::vector<char *> argv;
  for (const auto &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
    throw Error("cannot run '" + args[0] + "' (is a C compiler installed? set CC)");
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error("command failed (status " + std::to_string(status) + "): " + joined(args));
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "nasc-XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      throw Error("cannot create a temporary directory in " + fs::temp_directory_path().string());
    path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

} // namespace

ir::PassTimes emitSharedLibrary(const PolyhedralModel &model, const CompileOptions &options,
                                const std::string &soPath, const std::string &headerPath) {
  const std::string target = options.target.native ? "native" : options.target.triple;
  const std::string cc = linkCompiler(target);
  TempDir tmp;
  fs::path abi = tmp.path / "abi.c";
  fs::path exports = tmp.path / "exports.map";
  codegen::GeneratedCode code = generateCode(model, options);
  const std::vector<std::string> objects = code.writeObjects((tmp.path / "model").string());
  ir::PassTimes times = code.times();
  writeText(abi,
            libraryAbiSource(model.program, options.symbolPrefix, options.target, options.threads));
  writeText(exports, "{ global: nasc_model_*; local: *; };\n");
  times.time("link", [&] {
    std::vector<std::string> command = {cc,        "-O2", "-std=c11", "-fopenmp",  "-fPIC",
                                        "-shared", "-o",  soPath,     abi.string()};
    const std::vector<std::string> linker = linkerFlags(target);
    command.insert(command.end(), linker.begin(), linker.end());
    command.insert(command.end(), objects.begin(), objects.end());
    command.insert(command.end(), {"-Wl,--version-script=" + exports.string(), "-lm"});
    runCommand(command);
  });
  if (!headerPath.empty())
    writeText(headerPath, libraryAbiHeader(model.program, options.target));
  return times;
}

} // namespace nasc::compiler
