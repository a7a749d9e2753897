// Paths under the build tree for tests that write files: nothing left from an earlier run.
#pragma once

#include <filesystem>
#include <string>

#include <unistd.h>

namespace nasc::test {

/// <build>/test/<area>/<name>, the directory created, with no file `name` (nor SQLite's
/// `name`-wal, `name`-shm) left there.
inline std::string freshPath(const std::string &area, const std::string &name) {
  const std::filesystem::path dir = std::filesystem::path(NASC_BINARY_DIR) / "test" / area;
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  for (const char *suffix : {"", "-wal", "-shm"})
    std::filesystem::remove(path + suffix);
  return path;
}

/// <build>/test/<area>/<pid>, created: a directory of this test process alone, so that tests
/// ctest runs side by side never read a file another one is writing.
inline std::filesystem::path processDir(const std::string &area) {
  const std::filesystem::path dir =
      std::filesystem::path(NASC_BINARY_DIR) / "test" / area / std::to_string(getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

/// <build>/test/<area>/<name>, an empty directory.
inline std::string freshDir(const std::string &area, const std::string &name) {
  const std::filesystem::path dir = std::filesystem::path(NASC_BINARY_DIR) / "test" / area / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

} // namespace nasc::test
