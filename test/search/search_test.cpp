// nasc search (compiler/search/Search.h): candidates drawn the same from the same seed, Conv
// workloads keyed by their shape (keys written by hand), a candidate's estimate made of its layers'
// records in the tuning database, --resume reading candidates back, and the outputs agreeing with
// the steps they record.
#include "compiler/nas/FisherMeasurement.h"
#include "compiler/nas/ModelCost.h"
#include "compiler/nas/NeuralTrace.h"
#include "compiler/search/ConvWorkload.h"
#include "compiler/search/Search.h"
#include "compiler/search/SearchOutputs.h"
#include "compiler/search/SearchSpace.h"
#include "ir/import/ModelLoader.h"
#include "test/support/FreshPath.h"
#include "test/support/SmallCnn.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace nasc;

namespace {

/// x (1, 4, 16, 16) -> c1 Conv 3x3 (16) -> Relu -> c2 Conv 3x3 stride 2 (16) -> Relu -> pool ->
/// Gemm (10).
std::string smallModel() { return test::writeSmallCnn("search_cnn", {16, 16, 4, 16, 10}); }

/// A budget of `candidates`, a gate that passes every candidate (synflow tolerance 1e9), short
/// timings.
search::SearchOptions smallOptions(int64_t candidates) {
  search::SearchOptions options;
  options.candidates = candidates;
  options.seed = 11;
  options.gate.tolerances[nas::Policy::Synflow] = 1e9;
  options.synflowPerLayer = 0;
  options.measure.repeat = 3;
  options.measure.minSeconds = 0;
  options.finalists = 2;
  return options;
}

search::SearchResult runSmall(const std::string &model, const search::SearchOptions &options,
                              search::TuningDb &db) {
  return search::runSearch(model, options, db, [](const search::Progress &) {},
                           [] { return false; });
}

std::vector<std::string> texts(const std::vector<nas::NeuralStep> &steps) {
  std::vector<std::string> list;
  for (const nas::NeuralStep &step : steps)
    list.push_back(step.toString());
  return list;
}

ir::Graph applied(ir::Graph graph, const std::vector<nas::NeuralStep> &steps) {
  for (const nas::NeuralStep &step : steps)
    graph = nas::applyNeuralStep(graph, step);
  return graph;
}

} // namespace

TEST_CASE("a candidate is drawn the same from the same seed and index", "[search]") {
  const ir::Graph graph = nas::loadForTraining(smallModel());
  CHECK(search::searchableConvs(graph) == std::vector<std::string>{"c1", "c2"});
  bool someSteps = false;
  for (int64_t index = 0; index < 8; ++index) {
    std::mt19937_64 a = search::candidateRng(3, index), b = search::candidateRng(3, index);
    const search::Candidate first = search::sampleCandidate(graph, a);
    const search::Candidate second = search::sampleCandidate(graph, b);
    CHECK(texts(first.steps) == texts(second.steps));
    someSteps = someSteps || !first.steps.empty();
    for (const nas::NeuralStep &step : first.steps)
      CHECK((step.node == "c1" || step.node == "c2"));
  }
  CHECK(someSteps);
}

TEST_CASE("a Conv workload is keyed by its shape after the steps", "[search]") {
  const ir::Graph graph = nas::loadForTraining(smallModel());
  const std::vector<search::ConvWorkload> before = search::convWorkloads(graph);
  REQUIRE(before.size() == 2);
  CHECK(before[0].key ==
        "Conv x=1x4x16x16 w=16x4x3x3 group=1 strides=1,1 pads=1,1,1,1 dilations=1,1");
  CHECK(before[1].key ==
        "Conv x=1x16x16x16 w=16x16x3x3 group=1 strides=2,2 pads=1,1,1,1 dilations=1,1");
  const std::vector<search::ConvWorkload> after =
      search::convWorkloads(nas::applyNeuralStep(graph, {"c2", "group", {4}}));
  CHECK(after[1].key ==
        "Conv x=1x16x16x16 w=16x4x3x3 group=4 strides=2,2 pads=1,1,1,1 dilations=1,1");
  const search::Measurement m = search::measure(after[1].graph, {}, smallOptions(1).measure);
  CHECK(m.relativeError < 1e-5);
  CHECK(m.seconds > 0);
}

TEST_CASE("a search records every candidate, estimates it from its layers' records and resumes",
          "[search]") {
  const std::string model = smallModel();
  const search::SearchOptions options = smallOptions(6);
  search::TuningDb db(nasc::test::freshPath("search", "search_resume.db"));
  const search::SearchResult result = runSmall(model, options, db);
  REQUIRE(result.candidates.size() == 6);
  CHECK(db.searchRecords(result.identity).size() == 6);

  // The estimate of each measured candidate from the database's layer records, recomputed here.
  const std::string target = search::targetKey(options.measure.target);
  auto recorded = [&](const ir::Graph &graph) {
    double seconds = 0;
    for (const search::ConvWorkload &w : search::convWorkloads(graph)) {
      const std::optional<search::TuningRecord> r = db.best(w.key, target, search::nascVersion());
      REQUIRE(r);
      seconds += r->seconds;
    }
    return seconds;
  };
  const ir::Graph original = nas::loadForTraining(model);
  CHECK(result.otherSeconds >= 0);
  const double other = result.otherSeconds;
  int measured = 0;
  for (const search::CandidateResult &c : result.candidates) {
    INFO(c.index << ": " << c.status << " " << c.reason);
    CHECK((c.status == "measured" || (c.status == "refused" && c.steps.empty())));
    if (c.status != "measured")
      continue;
    ++measured;
    CHECK(c.estimate == Approx(other + recorded(applied(original, c.steps))).epsilon(1e-12));
    CHECK(c.flops == nas::modelCost(applied(original, c.steps)).flops);
  }
  CHECK(measured > 0);

  search::SearchOptions resume = options;
  resume.resume = true;
  const search::SearchResult again = runSmall(model, resume, db);
  CHECK(again.identity == result.identity);
  CHECK(db.searchRecords(result.identity).size() == 6);
  CHECK(again.layersMeasured == 0);
  for (size_t i = 0; i < 6; ++i) {
    CHECK(texts(again.candidates[i].steps) == texts(result.candidates[i].steps));
    CHECK(again.candidates[i].status == result.candidates[i].status);
    CHECK(again.candidates[i].estimate == result.candidates[i].estimate);
  }
}

TEST_CASE("a search stops between candidates when asked", "[search]") {
  search::TuningDb db(nasc::test::freshPath("search", "search_stop.db"));
  int polled = 0;
  const search::SearchResult result = search::runSearch(
      smallModel(), smallOptions(50), db, [](const search::Progress &) {},
      [&] { return ++polled > 2; });
  CHECK(result.candidates.size() == 2);
}

TEST_CASE("the outputs of a search hold the best candidate's steps", "[search]") {
  const std::string model = smallModel();
  const search::SearchOptions options = smallOptions(6);
  search::TuningDb db(nasc::test::freshPath("search", "search_outputs.db"));
  const search::SearchResult result = runSmall(model, options, db);
  const fs::path dir = fs::path(NASC_BINARY_DIR) / "test" / "search" / "outputs";
  fs::remove_all(dir);
  search::writeSearchOutputs(dir.string(), model, result, options, db);
  const nlohmann::json report = nlohmann::json::parse(std::ifstream(dir / "report.json"));
  CHECK(report["candidates"]["total"] == 6);
  CHECK(fs::exists(dir / "report.md"));
  CHECK(fs::exists(dir / "pareto.svg"));
  if (!result.best) {
    CHECK(report["best"].is_null());
    CHECK_FALSE(fs::exists(dir / "model.onnx"));
    return;
  }
  const search::Timed &best = result.finalists[*result.best];
  CHECK(best.seconds < result.originalSeconds);
  CHECK(report["best"]["speedup"].get<double>() ==
        Approx(result.originalSeconds / best.seconds));
  // schedule.json replays the steps; model.onnx is the architecture they give.
  ir::Graph replayed = nas::loadForTraining(model);
  nas::applyNeuralSteps(replayed, compiler::readScheduleFile((dir / "schedule.json").string()));
  const nas::ModelCost expected = nas::modelCost(applied(nas::loadForTraining(model), best.steps));
  CHECK(nas::modelCost(replayed).flops == expected.flops);
  const nas::ModelCost written = nas::modelCost(nas::loadForTraining((dir / "model.onnx").string()));
  CHECK(written.flops == expected.flops);
  CHECK(written.params == expected.params);
  CHECK(report["best"]["flops"].get<double>() == expected.flops);
  CHECK(fs::file_size(dir / "libmodel.so") > 0);
  CHECK(fs::exists(dir / "model.h"));
  for (const auto &entry : fs::directory_iterator(dir))
    CHECK(entry.path().extension() != ".partial");
}

namespace {

/// Writes an executable shell script `name` under the build tree with `body`; returns its path.
std::string script(const std::string &name, const std::string &body) {
  const std::string path = nasc::test::freshPath("search", name);
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

const std::string kNasc = std::string(NASC_BINARY_DIR) + "/tools/nasc";

} // namespace

TEST_CASE("a measurement in a child process contains crashes, hangs and wrong outputs",
          "[search][child]") {
  const ir::Graph graph = nas::loadForTraining(smallModel());
  const search::ConvWorkload workload = search::convWorkloads(graph).at(1);
  const search::MeasureOptions options = smallOptions(1).measure;
  const search::Measurement m = search::measureInChild(workload.graph, {}, options, kNasc, 120);
  CHECK(m.relativeError < 1e-5);
  CHECK(m.seconds > 0);
  CHECK_THROWS_WITH(search::measureInChild(workload.graph, {}, options,
                                           script("crash.sh", "kill -SEGV $$"), 120),
                    Catch::Contains("ended by signal 11"));
  CHECK_THROWS_WITH(search::measureInChild(workload.graph, {}, options,
                                           script("hang.sh", "exec sleep 60"), 1),
                    Catch::Contains("ended by timed out after 1 s"));
  CHECK_THROWS_AS(search::measureInChild(
                      workload.graph, {}, options,
                      script("wrong.sh", "echo '{\"error\": \"differs\", \"wrong\": true}'"), 120),
                  search::WrongOutput);
}

TEST_CASE("a search goes on when a candidate's code crashes", "[search][child]") {
  // The first 3 measurements (the original whole, its two Convs) run nasc; later ones crash.
  const std::string counter = nasc::test::freshPath("search", "crash_counter");
  const std::string crashing =
      script("crash_later.sh", "n=$(cat " + counter + " 2>/dev/null || echo 0)\necho $((n + 1)) > " +
                                   counter + "\n[ \"$n\" -lt 3 ] && exec " + kNasc +
                                   " \"$@\"\nkill -SEGV $$");
  search::SearchOptions options = smallOptions(4);
  options.childExecutable = crashing;
  search::TuningDb db(nasc::test::freshPath("search", "search_crash.db"));
  const search::SearchResult result = runSmall(smallModel(), options, db);
  REQUIRE(result.candidates.size() == 4);
  int failed = 0;
  for (const search::CandidateResult &c : result.candidates) {
    INFO(c.index << ": " << c.status << " " << c.reason);
    CHECK((c.status == "failed" || c.status == "refused"));
    if (c.status == "failed") {
      ++failed;
      CHECK_THAT(c.reason, Catch::Contains("signal 11"));
    }
  }
  CHECK(failed > 0);
  CHECK_FALSE(result.best);
}

TEST_CASE("the search's synflow tolerance is per Conv the steps change", "[search]") {
  search::SearchOptions options;
  CHECK(options.synflowPerLayer == 0.75);
  CHECK(search::gateParamsFor(options, 4).tolerances.at(nas::Policy::Synflow) == 3.0);
  CHECK(search::gateParamsFor(options, 1).tolerances.at(nas::Policy::Synflow) == 0.75);
  options.synflowPerLayer = 0;
  CHECK(search::gateParamsFor(options, 4).tolerances.at(nas::Policy::Synflow) == 6.5);
  options.synflowPerLayer = 0.75;
  options.policy = nas::Policy::JacobCov;
  CHECK(search::gateParamsFor(options, 4).tolerances == nas::GateParams{}.tolerances);
}
