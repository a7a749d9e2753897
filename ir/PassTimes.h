// Wall-clock time per compilation phase, for `nasc compile --time-passes`.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace nasc::ir {

/// Seconds spent per named phase, accumulated over calls, in the order phases first ran.
class PassTimes {
public:
  /// Adds `seconds` to phase `phase`.
  void add(const std::string &phase, double seconds);
  /// Adds every phase of `other`, in its order.
  void add(const PassTimes &other);

  /// Runs `work()` and adds its wall-clock time to `phase`; returns what it returns.
  template <class Work> decltype(auto) time(const std::string &phase, Work &&work) {
    Stopwatch watch(*this, phase);
    return work();
  }

  const std::vector<std::pair<std::string, double>> &phases() const { return phases_; }
  /// The sum of all phases, in seconds.
  double total() const;
  /// One line per phase: name, milliseconds and share of the total; then the total.
  std::string report() const;

private:
  /// Adds the time from its construction to its destruction to a phase (also on exceptions).
  class Stopwatch {
  public:
    Stopwatch(PassTimes &times, const std::string &phase)
        : times_(times), phase_(phase), start_(std::chrono::steady_clock::now()) {}
    ~Stopwatch() {
      times_.add(phase_,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    }
    Stopwatch(const Stopwatch &) = delete;
    Stopwatch &operator=(const Stopwatch &) = delete;

  private:
    PassTimes &times_;
    std::string phase_;
    std::chrono::steady_clock::time_point start_;
  };

  std::vector<std::pair<std::string, double>> phases_;
};

} // namespace nasc::ir
