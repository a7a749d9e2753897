// .npy reading and writing, checked against files written by NumPy itself.
#include "ir/Npy.h"
#include "ir/Error.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace nasc;

namespace {

std::string tempPath(const std::string &name) {
  return (std::filesystem::temp_directory_path() / ("nasc_npy_" + name)).string();
}

} // namespace

TEST_CASE("a float32 array written by NumPy reads back with its shape and values", "[npy]") {

  std::string path = tempPath("np.npy");
  std::string cmd = "/usr/bin/python3 -c \"import numpy as np; np.save('" + path +
                    "', np.arange(24, dtype=np.float32).reshape(2,3,4) * 0.5)\"";
  REQUIRE(std::system(cmd.c_str()) == 0);
  ir::Tensor t = ir::readNpy(path);
  CHECK(t.shape == ir::Shape{2, 3, 4});
  REQUIRE(t.f.size() == 24);
  CHECK(t.f[23] == 11.5f);
}

TEST_CASE("an array nasc writes is read by NumPy with the same values", "[npy]") {

  ir::Tensor t = ir::Tensor::zeros({3, 2}, 1.25f);
  t.f[5] = -7.0f;
  std::string path = tempPath("nasc.npy");
  ir::writeNpy(path, t);
  std::string cmd = "/usr/bin/python3 -c \"import numpy as np; a = np.load('" + path +
                    "'); assert a.shape == (3, 2) and a.dtype == np.float32 and a[2,1] == -7.0 "
                    "and a[0,0] == 1.25\"";
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("a non-npy file is a clear error naming it", "[npy]") {
  std::string path = tempPath("bad.npy");
  std::system(("echo hello > " + path).c_str());
  CHECK_THROWS_WITH(ir::readNpy(path), path + ": not a .npy file (bad magic)");
}

TEST_CASE("a negative dimension in an .npy header is a clear error", "[npy]") {
  std::string path = tempPath("negative.npy");
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header;
  out.close();
  CHECK_THROWS_WITH(ir::readNpy(path), path + ": .npy shape has a negative dimension (-3)");
}
