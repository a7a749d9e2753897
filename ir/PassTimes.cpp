#include "ir/PassTimes.h"

#include <cstdio>

namespace nasc::ir {

void PassTimes::add(const std::string &phase, double seconds) {
  for (auto &[name, total] : phases_)
    if (name == phase) {
      total += seconds;
      return;
    }
  phases_.emplace_back(phase, seconds);
}

void PassTimes::add(const PassTimes &other) {
  for (const auto &[name, seconds] : other.phases_)
    add(name, seconds);
}

double PassTimes::total() const {
  double sum = 0;
  for (const auto &entry : phases_)
    sum += entry.second;
  return sum;
}

std::string PassTimes::report() const {
  std::string text;
  char line[160];
  double sum = total();
  for (const auto &[name, seconds] : phases_) {
    std::snprintf(line, sizeof line, "%-32s %10.1f ms %6.1f%%\n", name.c_str(), seconds * 1e3,
                  sum > 0 ? 100.0 * seconds / sum : 0.0);
    text += line;
  }
  std::snprintf(line, sizeof line, "%-32s %10.1f ms\n", "total", sum * 1e3);
  return text + line;
}

} // namespace nasc::ir
