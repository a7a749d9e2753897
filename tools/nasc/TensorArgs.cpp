#include "tools/nasc/TensorArgs.h"

#include "ir/Error.h"

namespace nasc::cli {

namespace {

size_t indexOfName(const std::string &name, const ir::Program &program, const std::vector<int> &ids,
                   const std::string &kind) {
  std::string known;
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string &bufferName = program.buffers[static_cast<size_t>(ids[i])].name;
    if (bufferName == name)
      return i;
    known += (known.empty() ? "" : ", ") + bufferName;
  }
  throw Error("the model has no " + kind + " named '" + name + "' (its " + kind + "s: " + known +
              ")");
}

} // namespace

std::vector<std::string> bindFiles(const std::vector<std::string> &args, const ir::Program &program,
                                   const std::vector<int> &ids, const std::string &kind) {
  std::vector<std::string> files(ids.size());
  size_t next = 0;
  for (const auto &arg : args) {
    size_t eq = arg.find('=');
    size_t slot =
        eq == std::string::npos ? next++ : indexOfName(arg.substr(0, eq), program, ids, kind);
    if (slot >= ids.size())
      throw Error("too many --" + kind + " files: the model has " + std::to_string(ids.size()) +
                  " " + kind + "s");
    if (!files[slot].empty())
      throw Error(kind + " '" + program.buffers[static_cast<size_t>(ids[slot])].name +
                  "' is given twice");
    files[slot] = eq == std::string::npos ? arg : arg.substr(eq + 1);
  }
  for (size_t i = 0; i < ids.size(); ++i)
    if (files[i].empty())
      throw Error("no file given for " + kind + " '" +
                  program.buffers[static_cast<size_t>(ids[i])].name + "' (use --" + kind +
                  " NAME=FILE.npy)");
  return files;
}

} // namespace nasc::cli
