#include "compiler/search/ParetoPlot.h"

#include "ir/Error.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <locale>
#include <sstream>
#include <utility>

extern char **environ;

namespace nasc::search {

namespace {

namespace fs = std::filesystem;

bool finite(const PlotPoint &point) {
  return std::isfinite(point.seconds) && std::isfinite(point.proxy);
}

/// `value` in the C locale with `digits` significant digits.
std::string number(double value, int digits = 17) {
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out.precision(digits);
  out << value;
  return out.str();
}

/// `text` as a gnuplot single-quoted string, in which gnuplot interprets nothing (no escapes,
/// macros nor backquotes): quotes doubled, control characters turned into spaces.
std::string quoted(const std::string &text) {
  std::string s = "'";
  for (char c : text)
    if (c == '\'')
      s += "''";
    else
      s += std::iscntrl(static_cast<unsigned char>(c)) ? ' ' : c;
  return s + "'";
}

/// One plot clause of the script: its points (x in ms), its gnuplot style and legend.
struct Series {
  std::string name; ///< the datablock's name, without '$'
  std::string style;
  std::string legend;
  std::vector<std::pair<double, double>> xy;
};

std::pair<double, double> plotted(const PlotPoint &point) {
  return {point.seconds * 1e3, point.proxy};
}

std::string counted(const std::string &what, const Series &series) {
  return what + " (" + std::to_string(series.xy.size()) + ")";
}

std::string milliseconds(const Series &series) {
  return series.xy.empty() ? "" : " (" + number(series.xy.front().first, 3) + " ms)";
}

/// refused, legal, Pareto front, original, best: drawn in this order, the best one on top.
std::vector<Series> plotSeries(const std::vector<PlotPoint> &points, double originalSeconds) {
  Series refused{"refused", "with points pt 6 ps 1 lc rgb '#9e9e9e'", "", {}};
  Series legal{"legal", "with points pt 7 ps 1 lc rgb '#1f77b4'", "", {}};
  Series front{"front", "with lines lw 2 lc rgb '#08306b'", "", {}};
  Series original{"original", "with points pt 9 ps 1.8 lc rgb '#000000'", "", {}};
  Series best{"best", "with points pt 3 ps 2.5 lw 2 lc rgb '#d62728'", "", {}};
  for (const PlotPoint &point : points)
    if (finite(point)) {
      (point.legal ? legal : refused).xy.push_back(plotted(point));
      if (point.best)
        best.xy.push_back(plotted(point));
    }
  for (size_t i : paretoFront(points))
    front.xy.push_back(plotted(points[i]));
  original.xy.push_back({originalSeconds * 1e3, 0.0});
  refused.legend = counted("refused", refused);
  legal.legend = counted("legal", legal);
  front.legend = counted("Pareto front", front);
  original.legend = "original" + milliseconds(original);
  best.legend = "best" + milliseconds(best);
  return {refused, legal, front, original, best};
}

std::string datablock(const Series &series) {
  std::string text = "$" + series.name + " << EOD\n";
  for (const auto &[x, y] : series.xy)
    text += number(x) + " " + number(y) + "\n";
  return text + "EOD\n";
}

std::string plotCommand(const std::vector<Series> &series) {
  std::string command;
  for (const Series &s : series)
    if (!s.xy.empty())
      command += std::string(command.empty() ? "plot " : ", \\\n     ") + "$" + s.name +
                 " using 1:2 " + s.style + " title " + quoted(s.legend);
  return command + "\n";
}

std::string gnuplotScript(const std::vector<PlotPoint> &points, double originalSeconds,
                          const std::string &proxyLabel, const std::string &title) {
  std::string script = "set encoding utf8\n"
                       "set terminal svg size 900,560 dynamic noenhanced font 'sans,12' "
                       "background rgb 'white'\n";
  script += "set title " + quoted(title) + "\n";
  script += "set xlabel 'latency (ms)'\n";
  script += "set ylabel " + quoted(proxyLabel) + "\n";
  script += "set key outside right top\n"
            "set grid\n"
            "set xzeroaxis linetype 0\n"
            "set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n";
  const std::vector<Series> series = plotSeries(points, originalSeconds);
  for (const Series &s : series)
    script += datablock(s);
  return script + plotCommand(series);
}

/// A file descriptor, closed on destruction.
class Descriptor {
public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  int fd() const { return fd_; }

private:
  int fd_;
};

/// A directory made by mkdtemp under the system's temporary directory, removed with all it holds
/// on destruction.
class TemporaryDir {
public:
  TemporaryDir() {
    std::error_code error;
    const fs::path base = fs::absolute(fs::temp_directory_path(error), error);
    std::string pattern = (base / "nasc-plot-XXXXXX").string();
    if (error || !mkdtemp(pattern.data()))
      throw Error("pareto plot: cannot create a temporary directory in " + base.string());
    path_ = pattern;
  }
  ~TemporaryDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TemporaryDir(const TemporaryDir &) = delete;
  TemporaryDir &operator=(const TemporaryDir &) = delete;
  const fs::path &path() const { return path_; }

private:
  fs::path path_;
};

/// `path` opened for writing (created or truncated, close-on-exec); throws naming `shownPath`.
int openForWriting(const std::string &path, const std::string &shownPath) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    throw Error(shownPath + ": cannot write (" + std::strerror(errno) + ")");
  return fd;
}

/// `path`.partial open for writing, removed on destruction unless commit() renamed it to `path`.
class PartialFile {
public:
  explicit PartialFile(const std::string &path)
      : path_(path), partial_(path + ".partial"), file_(openForWriting(partial_, path)) {}
  ~PartialFile() {
    if (!committed_)
      ::unlink(partial_.c_str());
  }
  PartialFile(const PartialFile &) = delete;
  PartialFile &operator=(const PartialFile &) = delete;
  int fd() const { return file_.fd(); }
  bool empty() const {
    struct stat info{};
    return ::fstat(file_.fd(), &info) != 0 || info.st_size == 0;
  }
  void commit() {
    if (std::rename(partial_.c_str(), path_.c_str()) != 0)
      throw Error(path_ + ": cannot write (" + std::strerror(errno) + ")");
    committed_ = true;
  }

private:
  std::string path_;
  std::string partial_;
  Descriptor file_;
  bool committed_ = false;
};

void writeFile(const fs::path &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  if (!out)
    throw Error(path.string() + ": cannot write");
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `text` with every run of white space made one space, trimmed, cut after 2000 characters.
std::string oneLine(const std::string &text) {
  std::string line;
  for (char c : text) {
    const bool space = std::isspace(static_cast<unsigned char>(c));
    if (!space || (!line.empty() && line.back() != ' '))
      line += space ? ' ' : c;
  }
  if (!line.empty() && line.back() == ' ')
    line.pop_back();
  return line.size() > 2000 ? line.substr(0, 2000) + "..." : line;
}

/// Runs `gnuplot -d SCRIPT` (found on PATH) with stdin from /dev/null, stdout to `out` and
/// stderr to `err`, and waits for it; its wait status. Throws when it cannot be started.
int runGnuplot(const std::string &script, int out, int err, const std::string &path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  std::string program = "gnuplot", defaults = "-d", file = script;
  char *argv[] = {program.data(), defaults.data(), file.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == ENOENT)
    throw Error(path + ": cannot draw: gnuplot is not installed (not found on PATH); install "
                       "Debian's gnuplot-nox (scripts/install-deps.sh)");
  if (spawned != 0)
    throw Error(path + ": cannot draw: cannot run gnuplot (" + std::strerror(spawned) + ")");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string failure(int status) {
  if (WIFSIGNALED(status))
    return "gnuplot was killed by signal " + std::to_string(WTERMSIG(status));
  return "gnuplot failed (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
}

} // namespace

std::vector<size_t> paretoFront(const std::vector<PlotPoint> &points) {
  std::vector<size_t> candidates;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].legal && finite(points[i]))
      candidates.push_back(i);
  std::stable_sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
    const PlotPoint &p = points[a], &q = points[b];
    return p.seconds != q.seconds ? p.seconds < q.seconds : p.proxy > q.proxy;
  });
  std::vector<size_t> front;
  for (size_t i : candidates)
    if (front.empty() || points[i].proxy > points[front.back()].proxy)
      front.push_back(i);
  return front;
}

void writeParetoSvg(const std::string &path, const std::vector<PlotPoint> &points,
                    double originalSeconds, const std::string &proxyLabel,
                    const std::string &title) {
  if (!std::isfinite(originalSeconds) || originalSeconds <= 0)
    throw Error(path + ": cannot draw: the original's latency must be finite and positive, not " +
                number(originalSeconds) + " s");
  TemporaryDir temporary;
  const fs::path script = temporary.path() / "pareto.gp";
  const fs::path errors = temporary.path() / "gnuplot.stderr";
  writeFile(script, gnuplotScript(points, originalSeconds, proxyLabel, title));
  Descriptor err(openForWriting(errors.string(), errors.string()));
  PartialFile svg(path);
  const int status = runGnuplot(script.string(), svg.fd(), err.fd(), path);
  if (status != 0)
    throw Error(path + ": cannot draw: " + failure(status) + ": " + oneLine(readFile(errors)));
  if (svg.empty())
    throw Error(path + ": cannot draw: gnuplot wrote nothing: " + oneLine(readFile(errors)));
  svg.commit();
}

} // namespace nasc::search
