// An environment variable set or unset for one scope of a test (e.g. PATH, CC).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace nasc::test {

/// Sets `name` to `value` (unsets it for nullopt) and restores its old value, or its absence,
/// when destroyed. The environment is the process's: child processes see the new value.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::optional<std::string> &value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_); }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  void set(const std::optional<std::string> &value) {
    if (value)
      setenv(name_, value->c_str(), 1);
    else
      unsetenv(name_);
  }
  const char *name_;
  std::optional<std::string> old_;
};

} // namespace nasc::test
