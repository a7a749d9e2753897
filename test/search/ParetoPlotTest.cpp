// The pareto.svg plot (compiler/search/ParetoPlot.h): the front computed by hand, the SVG gnuplot
// draws (well-formed, titled, one marker per point in each legend entry's group), user text
// never run as gnuplot commands, and gnuplot missing or failing reported naming it, with no file
// left behind.
#include "compiler/search/ParetoPlot.h"
#include "ir/Error.h"
#include "test/support/FreshPath.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

using Catch::Matchers::Contains;
using nasc::search::paretoFront;
using nasc::search::PlotPoint;
using nasc::search::writeParetoSvg;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Sets environment variable `name` to `value` for its lifetime, then restores it.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const std::string &value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name_;
  std::optional<std::string> old_;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t occurrences(const std::string &text, const std::string &what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++count;
  return count;
}

/// Whether the elements of `xml` nest properly (declarations, comments and self-closing
/// elements skipped): a well-formedness check enough for gnuplot's SVG.
bool tagsBalanced(const std::string &xml) {
  std::vector<std::string> open;
  for (size_t at = xml.find('<'); at != std::string::npos; at = xml.find('<', at + 1)) {
    const size_t end = xml.find('>', at);
    if (end == std::string::npos)
      return false;
    const std::string tag = xml.substr(at + 1, end - at - 1);
    const std::string name = tag.substr(0, tag.find_first_of(" \t\n/", 1));
    if (tag[0] == '?' || tag[0] == '!' || tag.back() == '/')
      continue;
    if (tag[0] != '/')
      open.push_back(name);
    else if (open.empty() || "/" + open.back() != name)
      return false;
    else
      open.pop_back();
  }
  return open.empty();
}

/// The markers gnuplot drew in the group of the plot whose legend is `legend`, the legend's own
/// sample marker included.
size_t markersOf(const std::string &svg, const std::string &legend) {
  const size_t text = svg.find("<text>" + legend + "</text>");
  REQUIRE(text != std::string::npos);
  const size_t begin = svg.rfind("<g id=\"gnuplot_plot_", text);
  const size_t end = svg.find("<g id=\"gnuplot_plot_", text);
  REQUIRE(begin != std::string::npos);
  return occurrences(svg.substr(begin, end - begin), "<use xlink:href='#gpPt");
}

std::vector<PlotPoint> searchPoints() {
  return {
      {0.0030, -2.0, false, false}, {0.0024, 0.4, true, false}, {0.0020, -0.3, true, true},
      {0.0050, -8.0, false, false}, {0.0035, 0.9, true, false}, {0.0026, 0.6, true, false},
      {0.0010, -4.0, false, false}, {kNan, 1.0, true, false},
  };
}

bool holdsFiles(const std::string &dir) { return !fs::is_empty(dir); }

} // namespace

TEST_CASE("the Pareto front is the legal points nothing beats, by increasing seconds",
          "[search][plot]") {
  const std::vector<PlotPoint> points = {
      {1.0, 0.0, true, false},   // 0: on it
      {2.0, 1.0, true, false},   // 1: on it
      {1.5, -0.5, true, false},  // 2: beaten by 0 in both
      {0.5, -1.0, false, false}, // 3: would be on it, refused
      {2.0, 0.5, true, false},   // 4: as fast as 1, lower proxy
      {3.0, 1.0, true, false},   // 5: as good as 1, slower
      {1.0, 0.0, true, true},    // 6: equal to 0, a later index
      {4.0, 3.0, true, false},   // 7: on it
      {5.0, 9.0, false, false},  // 8: best proxy, refused
      {0.8, -0.2, true, false},  // 9: on it, the fastest legal one
      {kNan, 5.0, true, false},  // 10: not finite
      {2.5, kInf, true, false},  // 11: not finite
  };
  CHECK(paretoFront(points) == std::vector<size_t>{9, 0, 1, 7});
}

TEST_CASE("the Pareto front of equal seconds or no legal point", "[search][plot]") {
  CHECK(paretoFront({}).empty());
  CHECK(paretoFront({{1.0, 2.0, false, false}, {2.0, 3.0, false, true}}).empty());
  CHECK(paretoFront({{1.0, 2.0, true, false}, {1.0, 3.0, true, false}, {1.0, 3.0, true, false}}) ==
        std::vector<size_t>{1});
  CHECK(paretoFront({{3.0, 1.0, true, false}, {2.0, 1.0, true, false}}) == std::vector<size_t>{1});
}

TEST_CASE("pareto.svg is a titled SVG with one marker per point in each legend entry's group",
          "[search][plot]") {
  const std::string tmp = nasc::test::freshDir("search", "plot-tmp");
  const std::string dir = nasc::test::freshDir("search", "plot");
  const std::string path = dir + "/pareto.svg";
  const std::vector<PlotPoint> points = searchPoints();
  REQUIRE(paretoFront(points) == std::vector<size_t>{2, 1, 5, 4});
  {
    ScopedEnv tmpdir("TMPDIR", tmp);
    writeParetoSvg(path, points, 0.0025, "synflow: ln(new) - ln(original)",
                   "resnet8 search: 8 candidates");
  }
  const std::string svg = readFile(path);
  CHECK((svg.rfind("<?xml", 0) == 0 || svg.rfind("<svg", 0) == 0));
  CHECK_THAT(svg, Contains("</svg>"));
  CHECK(tagsBalanced(svg));
  CHECK_THAT(svg, Contains("resnet8 search: 8 candidates"));
  CHECK_THAT(svg, Contains("synflow: ln(new) - ln(original)"));
  CHECK_THAT(svg, Contains("latency (ms)"));
  CHECK(markersOf(svg, "refused (3)") == 3 + 1);
  CHECK(markersOf(svg, "legal (4)") == 4 + 1);
  CHECK(markersOf(svg, "Pareto front (4)") == 0);
  CHECK(markersOf(svg, "best (2 ms)") == 1 + 1);
  CHECK(markersOf(svg, "original (2.5 ms)") == 1 + 1);
  CHECK(std::vector<fs::path>(fs::directory_iterator(dir), {}) == std::vector<fs::path>{path});
  CHECK_FALSE(holdsFiles(tmp));
}

TEST_CASE("pareto.svg without legal points has no front entry", "[search][plot]") {
  const std::string path = nasc::test::freshDir("search", "plot-refused") + "/pareto.svg";
  writeParetoSvg(path, {{0.002, -1.0, false, false}, {0.003, -2.0, false, false}}, 0.0025,
                 "synflow", "all refused");
  const std::string svg = readFile(path);
  CHECK(markersOf(svg, "refused (2)") == 2 + 1);
  CHECK(svg.find("legal (") == std::string::npos);
  CHECK(svg.find("Pareto front") == std::string::npos);
  CHECK(svg.find("best (") == std::string::npos);
  CHECK(markersOf(svg, "original (2.5 ms)") == 1 + 1);
}

TEST_CASE("a title and label are drawn as text, never run as gnuplot commands", "[search][plot]") {
  const std::string dir = nasc::test::freshDir("search", "plot-quoting");
  const std::string path = dir + "/pareto.svg";
  const std::string touched = dir + "/touched";
  const std::string title = "it's `touch " + touched + "` @macro $refused \\n\nend";
  writeParetoSvg(path, searchPoints(), 0.0025, "a 'label' `touch " + touched + "`", title);
  CHECK_FALSE(fs::exists(touched));
  const std::string svg = readFile(path);
  CHECK_THAT(svg, Contains("it's `touch " + touched + "` @macro $refused \\n end"));
  CHECK_THAT(svg, Contains("a 'label' `touch " + touched + "`"));
}

TEST_CASE("pareto.svg without gnuplot on PATH names gnuplot and how to install it",
          "[search][plot]") {
  const std::string empty = nasc::test::freshDir("search", "plot-empty-path");
  const std::string dir = nasc::test::freshDir("search", "plot-no-gnuplot");
  {
    ScopedEnv path("PATH", empty);
    CHECK_THROWS_WITH(writeParetoSvg(dir + "/pareto.svg", searchPoints(), 0.0025, "synflow", "t"),
                      Contains("gnuplot is not installed") && Contains("gnuplot-nox") &&
                          Contains("scripts/install-deps.sh"));
  }
  CHECK_FALSE(holdsFiles(dir));
}

TEST_CASE("a failing gnuplot is reported with its stderr, leaving no file", "[search][plot]") {
  const std::string bin = nasc::test::freshDir("search", "plot-failing-gnuplot");
  const std::string tmp = nasc::test::freshDir("search", "plot-failing-tmp");
  const std::string dir = nasc::test::freshDir("search", "plot-failed");
  const std::string fake = bin + "/gnuplot";
  std::ofstream(fake) << "#!/bin/sh\necho \"$2\" > " << bin << "/script-path\n"
                      << "printf 'partial svg' \necho '\"pareto.gp\" line 9:' >&2\n"
                      << "echo '   no such terminal' >&2\nexit 3\n";
  fs::permissions(fake, fs::perms::owner_all);
  {
    ScopedEnv path("PATH", bin);
    ScopedEnv tmpdir("TMPDIR", tmp);
    CHECK_THROWS_WITH(writeParetoSvg(dir + "/pareto.svg", searchPoints(), 0.0025, "synflow", "t"),
                      Contains(dir + "/pareto.svg: cannot draw: gnuplot failed (exit status 3): "
                                     "\"pareto.gp\" line 9: no such terminal"));
  }
  const std::string script = readFile(bin + "/script-path");
  CHECK_THAT(script, Contains(tmp));
  CHECK_FALSE(fs::exists(script.substr(0, script.size() - 1)));
  CHECK_FALSE(holdsFiles(dir));
  CHECK_FALSE(holdsFiles(tmp));
}

TEST_CASE("pareto.svg needs the original's latency, finite and positive", "[search][plot]") {
  const std::string dir = nasc::test::freshDir("search", "plot-bad-original");
  for (double seconds : {0.0, -1.0, kNan, kInf})
    CHECK_THROWS_WITH(writeParetoSvg(dir + "/pareto.svg", searchPoints(), seconds, "synflow", "t"),
                      Contains("the original's latency must be finite and positive"));
  CHECK_FALSE(holdsFiles(dir));
}
