#include "compiler/LinkCompiler.h"

#include "ir/Error.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace nasc::compiler {

namespace {

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);)
    parts.push_back(part);
  return parts;
}

/// Whether an executable file `name` is in one of $PATH's directories.
bool onPath(const std::string &name) {
  const char *path = std::getenv("PATH");
  for (const std::string &dir : split(path ? path : "", ':'))
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0)
      return true;
  return false;
}

/// Debian's cross gcc package for `triple` (Debian's name): gcc-<triple>, '_' spelled '-'.
std::string crossGccPackage(std::string triple) {
  std::replace(triple.begin(), triple.end(), '_', '-');
  return "gcc-" + triple;
}

/// $CC when it is set and not empty, else nullptr.
const char *userCompiler() {
  const char *cc = std::getenv("CC");
  return cc && *cc ? cc : nullptr;
}

} // namespace

std::string debianTriple(const std::string &triple) {
  std::vector<std::string> parts = split(triple, '-');
  if (parts.size() != 4)
    return triple;
  return parts[0] + "-" + parts[2] + "-" + parts[3];
}

std::string linkCompiler(const std::string &target) {
  if (const char *cc = userCompiler())
    return cc;
  if (target == "native")
    return "cc";
  const std::string triple = debianTriple(target);
  const std::string gcc = triple + "-gcc";
  if (!onPath(gcc))
    throw Error("linking a library for " + target + " needs the C cross compiler '" + gcc +
                "', which is not on PATH: install Debian's " + crossGccPackage(triple) +
                " (apt-get install " + crossGccPackage(triple) +
                "), or set CC to a C compiler for " + target);
  return gcc;
}

std::vector<std::string> linkerFlags(const std::string &target) {
  if (target == "native" && !userCompiler() && onPath("ld.lld"))
    return {"-fuse-ld=lld"};
  return {};
}

} // namespace nasc::compiler
