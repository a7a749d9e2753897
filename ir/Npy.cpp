#include "ir/Npy.h"

#include "ir/Error.h"

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

namespace nasc::ir {

namespace {

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  Shape shape;
};

NpyHeader parseHeader(const std::string &path, const std::string &text) {
  NpyHeader h;
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("'descr'\\s*:\\s*'([^']*)'")))
    throw Error(path + ": .npy header has no 'descr'");
  h.descr = m[1];
  h.fortranOrder = std::regex_search(text, std::regex("'fortran_order'\\s*:\\s*True"));
  if (!std::regex_search(text, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)")))
    throw Error(path + ": .npy header has no 'shape'");
  std::string dims = m[1];
  std::regex number("-?[0-9]+");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), number);
       it != std::sregex_iterator(); ++it) {
    h.shape.push_back(std::stoll(it->str()));
    if (h.shape.back() < 0)
      throw Error(path + ": .npy shape has a negative dimension (" + it->str() + ")");
  }
  return h;
}

template <typename T>
std::vector<T> readValues(std::istream &in, int64_t n, const std::string &path) {
  std::vector<T> values(static_cast<size_t>(n));
  in.read(reinterpret_cast<char *>(values.data()), static_cast<std::streamsize>(n * sizeof(T)));
  if (in.gcount() != static_cast<std::streamsize>(n * sizeof(T)))
    throw Error(path + ": .npy data is truncated");
  return values;
}

} // namespace

Tensor readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open .npy file");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw Error(path + ": not a .npy file (bad magic)");
  uint32_t headerLength = 0;
  unsigned char len[4] = {0, 0, 0, 0};
  in.read(reinterpret_cast<char *>(len), magic[6] == 1 ? 2 : 4);
  headerLength = len[0] | (len[1] << 8) | (len[2] << 16) | (static_cast<uint32_t>(len[3]) << 24);
  std::string text(headerLength, '\0');
  if (!in.read(text.data(), headerLength))
    throw Error(path + ": .npy header is truncated");
  NpyHeader h = parseHeader(path, text);
  if (h.fortranOrder)
    throw Error(path + ": Fortran-order .npy arrays are not supported (use C order)");
  Tensor t;
  t.shape = h.shape;
  if (h.descr == "<f4")
    t.f = readValues<float>(in, t.size(), path);
  else if (h.descr == "<f8") {
    std::vector<double> d = readValues<double>(in, t.size(), path);
    t.f.assign(d.begin(), d.end());
  } else
    throw Error(path + ": .npy dtype '" + h.descr + "' is not supported (need float32 '<f4')");
  return t;
}

void writeNpy(const std::string &path, const Tensor &tensor) {
  std::ostringstream dict;
  dict << "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int64_t d : tensor.shape)
    dict << d << ", ";
  dict << "), }";
  std::string header = dict.str();
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out)
    throw Error(path + ": cannot write .npy file");
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t n = static_cast<uint16_t>(header.size());
  char len[2] = {static_cast<char>(n & 0xff), static_cast<char>(n >> 8)};
  out.write(len, 2);
  out << header;
  out.write(reinterpret_cast<const char *>(tensor.f.data()),
            static_cast<std::streamsize>(tensor.f.size() * sizeof(float)));
  if (!out)
    throw Error(path + ": failed writing .npy file");
}

} // namespace nasc::ir
