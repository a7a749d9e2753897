#include "compiler/search/ChildProcess.h"

#include "ir/Error.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char **environ;

namespace nasc::search {

namespace {

/// The read end of a pipe whose write end the child gets as stdout and stderr.
struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int ends[2];
    if (pipe(ends) != 0)
      throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
    read = ends[0];
    write = ends[1];
  }
  ~Pipe() {
    if (read >= 0)
      close(read);
    if (write >= 0)
      close(write);
  }
};

/// Reads `fd` into `output` until EOF or `deadline`; false when the deadline came first.
bool drain(int fd, std::string &output, std::chrono::steady_clock::time_point deadline) {
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return false;
    pollfd waiting{fd, POLLIN, 0};
    const int ready = poll(&waiting, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      return ready < 0;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return true;
    output.append(buffer, static_cast<size_t>(n));
  }
}

} // namespace

std::string ChildResult::describe(double timeoutSeconds) const {
  switch (end) {
  case End::Exited:
    return "exit status " + std::to_string(code);
  case End::Signalled:
    return "signal " + std::to_string(code) + " (" + strsignal(code) + ")";
  case End::TimedOut:
    return "timed out after " + std::to_string(static_cast<long>(timeoutSeconds)) + " s";
  }
  return "";
}

ChildResult runChild(const std::vector<std::string> &argv, double timeoutSeconds) {
  Pipe output;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, output.write, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, output.write, STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, output.read);
  std::vector<char *> args;
  for (const std::string &arg : argv)
    args.push_back(const_cast<char *>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    throw Error(argv.at(0) + ": cannot start (" + std::strerror(spawned) + ")");
  close(output.write);
  output.write = -1;
  ChildResult result;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeoutSeconds));
  const bool ended = drain(output.read, result.output, deadline);
  if (!ended)
    kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!ended)
    result.end = ChildResult::End::TimedOut;
  else if (WIFSIGNALED(status))
    result = {ChildResult::End::Signalled, WTERMSIG(status), result.output};
  else
    result.code = WEXITSTATUS(status);
  return result;
}

} // namespace nasc::search
