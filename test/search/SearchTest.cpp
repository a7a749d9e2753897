// nasc search (compiler/search/Search.h): candidates drawn the same from the same seed, Conv
// workloads keyed by their shape (keys written by hand), a candidate's estimate made of its layers'
// records in the tuning database, --resume reading candidates back, and the outputs agreeing with
// the steps they record.
#include "compiler/search/Search.h"
#include "compiler/nas/FisherMeasurement.h"
#include "compiler/nas/ModelCost.h"
#include "compiler/nas/NeuralTrace.h"
#include "compiler/search/ConvWorkload.h"
#include "compiler/search/LayerTimes.h"
#include "compiler/search/ScheduleSpace.h"
#include "compiler/search/SearchOutputs.h"
#include "compiler/search/SearchSpace.h"
#include "ir/import/ModelLoader.h"
#include "test/support/FreshPath.h"
#include "test/support/SmallCnn.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

namespace fs = std::filesystem;
using namespace nasc;

namespace {

/// x (1, 4, 16, 16) -> c1 Conv 3x3 (16) -> Relu -> c2 Conv 3x3 stride 2 (16) -> Relu -> pool ->
/// Gemm (10).
std::string smallModel() { return test::writeSmallCnn("search_cnn", {16, 16, 4, 16, 10}); }

/// A budget of `candidates`, a gate that passes every candidate (synflow tolerance 1e9, no
/// weight floor), short timings.
search::SearchOptions smallOptions(int64_t candidates) {
  search::SearchOptions options;
  options.candidates = candidates;
  options.seed = 11;
  options.gate.tolerances[nas::Policy::Synflow] = 1e9;
  options.gate.layerWeightFloor = 0;
  options.synflowPerLayer = 0;
  options.measure.repeat = 3;
  options.measure.minSeconds = 0;
  options.finalists = 2;
  return options;
}

search::SearchResult runSmall(const std::string &model, const search::SearchOptions &options,
                              search::TuningDb &db) {
  return search::runSearch(
      model, options, db, [](const search::Progress &) {}, [] { return false; });
}

std::vector<std::string> texts(const std::vector<nas::NeuralStep> &steps) {
  std::vector<std::string> list;
  for (const nas::NeuralStep &step : steps)
    list.push_back(step.toString());
  return list;
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
    CHECK(c.estimate ==
          Approx(other + recorded(nas::applyNeuralSteps(original, c.steps))).epsilon(1e-12));
    CHECK(c.flops == nas::modelCost(nas::applyNeuralSteps(original, c.steps)).flops);
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
  // No schedule choice other than the default trace measured after the stop.
  for (const search::TuningRecord &record : db.searchRecords(result.identity + "#layers"))
    CHECK(record.workload.find(" schedule ") == std::string::npos);
}

TEST_CASE("a search asked to stop while it tunes schedules measures no new choice", "[search]") {
  search::TuningDb db(nasc::test::freshPath("search", "search_stop_schedules.db"));
  bool tuning = false;
  int polled = 0;
  const search::SearchResult result = search::runSearch(
      smallModel(), smallOptions(3), db,
      [&](const search::Progress &state) { tuning = tuning || state.phase == "schedules"; },
      [&] { return tuning && ++polled > 3; });
  CHECK(result.candidates.size() == 3);
  // At most the 3 choices polled before the stop (the default trace is measured before).
  int choices = 0;
  for (const search::TuningRecord &record : db.searchRecords(result.identity + "#layers"))
    choices += record.workload.find(" schedule ") != std::string::npos ? 1 : 0;
  CHECK(choices <= 3);
  CHECK(polled > 3);
}

TEST_CASE("a search with a time budget ends within it, every phase included", "[search]") {
  // planBudget's reserve is an estimate and the last candidate may end after the exploration's
  // end (here one candidate's layers take 2-8 s): half the budget again is the slack.
  search::SearchOptions options = smallOptions(0);
  options.seconds = 30;
  options.finalists = 1;
  search::TuningDb db(nasc::test::freshPath("search", "search_time_budget.db"));
  const search::SearchResult result = runSmall(smallModel(), options, db);
  INFO("wall " << result.wallSeconds << " s, " << result.candidates.size() << " candidates");
  CHECK_FALSE(result.candidates.empty());
  CHECK(result.wallSeconds < 1.5 * options.seconds);
  for (const char *phase : {"setup", "layers", "schedules", "finalists"})
    CHECK(result.phaseSeconds.count(phase) == 1);
}

TEST_CASE("the outputs of a search hold the best candidate's steps", "[search]") {
  const std::string model = smallModel();
  const search::SearchOptions options = smallOptions(6);
  search::TuningDb db(nasc::test::freshPath("search", "search_outputs.db"));
  const search::SearchResult result = runSmall(model, options, db);
  const fs::path dir = fs::path(NASC_BINARY_DIR) / "test" / "search" / "outputs";
  fs::remove_all(dir);
  const std::vector<std::string> files =
      search::writeSearchOutputs(dir.string(), model, result, options, db);
  std::set<std::string> inDir;
  for (const auto &entry : fs::directory_iterator(dir))
    inDir.insert(entry.path().filename().string());
  CHECK(std::set<std::string>(files.begin(), files.end()) == inDir);
  CHECK(files.size() == inDir.size());
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
  CHECK(report["best"]["speedup"].get<double>() == Approx(result.originalSeconds / best.seconds));
  // schedule.json replays the steps; model.onnx is the architecture they give.
  ir::Graph replayed = nas::loadForTraining(model);
  nas::applyNeuralSteps(replayed, compiler::readScheduleFile((dir / "schedule.json").string()));
  const nas::ModelCost expected =
      nas::modelCost(nas::applyNeuralSteps(nas::loadForTraining(model), best.steps));
  CHECK(nas::modelCost(replayed).flops == expected.flops);
  const nas::ModelCost written =
      nas::modelCost(nas::loadForTraining((dir / "model.onnx").string()));
  CHECK(written.flops == expected.flops);
  CHECK(written.params == expected.params);
  CHECK(report["best"]["flops"].get<double>() == expected.flops);
  CHECK(fs::file_size(dir / "libmodel.so") > 0);
  CHECK(fs::exists(dir / "model.h"));
  for (const auto &entry : fs::directory_iterator(dir))
    CHECK(entry.path().extension() != ".partial");
}

TEST_CASE("report.md gives a proxy's ratio in significant digits however small", "[search]") {
  // synflow of CIFAR ResNet-34 before and after a search (the demo of 2026-12-04): the ratio
  // 4.9e49 / 1.9e55 is 2.58e-06, which three decimals printed as 0.000. report.json holds ln
  // synflow (ln 1.9e55 = 127.28, ln 4.9e49 = 114.42), which the row shows as "ln synflow" with
  // the ratio of the linear values, e^(114.42 - 127.28).
  const nlohmann::json proxies = {{"synflow", std::log(1.9e55)}},
                       after = {{"synflow", std::log(4.9e49)}};
  const nlohmann::json report = {
      {"model", "m.json"},
      {"cpu", "znver5"},
      {"threads", 1},
      {"strategy", "random"},
      {"policy", "synflow"},
      {"seed", 1},
      {"candidates", {{"total", 2}, {"measured", 1}, {"refused", 1}, {"wrong", 0}, {"failed", 0}}},
      {"wall_seconds", 10.0},
      {"candidates_per_second", 0.2},
      {"phase_seconds", nlohmann::json::object()},
      {"tuned_original", {{"seconds", 0.0}}},
      {"original", {{"seconds", 0.010}, {"flops", 2e6}, {"params", 1e5}, {"proxies", proxies}}},
      {"best",
       {{"seconds", 0.004},
        {"flops", 1e6},
        {"params", 5e4},
        {"proxies", after},
        {"speedup", 2.5},
        {"speedup_vs_tuned", nullptr}}},
      {"layers", nlohmann::json::array()}};
  const std::string md = search::reportMarkdown(report.dump());
  CHECK(md.find("| ln synflow | 127.3 | 114.4 | 2.58e-06 |") != std::string::npos);
  CHECK(md.find("| latency (ms) | 10.000 | 4.000 | 0.4 |") != std::string::npos);
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
  CHECK_THROWS_WITH(
      search::measureInChild(workload.graph, {}, options, script("crash.sh", "kill -SEGV $$"), 120),
      Catch::Contains("ended by signal 11"));
  CHECK_THROWS_WITH(
      search::measureInChild(workload.graph, {}, options, script("hang.sh", "exec sleep 60"), 1),
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
      script("crash_later.sh",
             "n=$(cat " + counter + " 2>/dev/null || echo 0)\necho $((n + 1)) > " + counter +
                 "\n[ \"$n\" -lt 3 ] && exec " + kNasc + " \"$@\"\nkill -SEGV $$");
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

TEST_CASE("a search gives the original and its finalists each layer's fastest schedule choices",
          "[search][schedule]") {
  const std::string model = smallModel();
  const search::SearchOptions options = smallOptions(4);
  search::TuningDb db(nasc::test::freshPath("search", "search_schedules.db"));
  const search::SearchResult result = runSmall(model, options, db);
  REQUIRE_FALSE(result.finalists.empty());
  CHECK(result.tunedOriginal.reason == "");
  CHECK(result.tunedOriginal.seconds > 0);

  // Each network's tuned estimate and choices recomputed from the database's records: per Conv
  // workload the fastest of every choice of the space (the ones not tried have no record).
  const std::string target = search::targetKey(options.measure.target);
  auto check = [&](const ir::Graph &graph, const search::Timed &timed) {
    double seconds = result.otherSeconds;
    search::NodeChoices fastest;
    for (const search::ConvWorkload &w : search::convWorkloads(graph)) {
      double best = 0;
      for (const compiler::TraceChoices &c :
           search::traceChoiceSpace(options.measure.target.vector))
        if (auto r = db.best(search::workloadRecordKey(w, c), target, search::nascVersion()))
          if (best == 0 || r->seconds < best) {
            best = r->seconds;
            if (c == compiler::TraceChoices{})
              fastest.erase(w.node);
            else
              fastest[w.node] = c;
          }
      REQUIRE(best > 0);
      seconds += best;
    }
    CHECK(timed.tunedEstimate == Approx(seconds).epsilon(1e-12));
    CHECK(timed.choices == fastest);
  };
  const ir::Graph original = nas::loadForTraining(model);
  check(original, result.tunedOriginal);
  for (const search::Timed &f : result.finalists) {
    INFO("finalist " << f.index);
    check(nas::applyNeuralSteps(original, f.steps), f);
    CHECK(f.tunedEstimate <= f.estimate);
  }
}

TEST_CASE("an evolution search breeds candidates once warmed up and resumes exactly",
          "[search][evolution]") {
  const std::string model = smallModel();
  search::SearchOptions options = smallOptions(30);
  options.strategy = search::Strategy::Evolution;
  options.finalists = 1;
  search::TuningDb db(nasc::test::freshPath("search", "search_evolution.db"));
  const search::SearchResult result = runSmall(model, options, db);
  REQUIRE(result.candidates.size() == 30);
  CHECK(result.identity.find("strategy evolution") != std::string::npos);
  const ir::Graph original = nas::loadForTraining(model);
  int measured = 0, bred = 0;
  for (const search::CandidateResult &c : result.candidates) {
    std::mt19937_64 rng = search::candidateRng(options.seed, c.index);
    const bool random = texts(search::sampleCandidate(original, rng).steps) == texts(c.steps);
    INFO(c.index << ": " << c.status << ", " << measured << " measured before");
    if (measured < 16) // EvolutionOptions::warmup: the random draws until then
      CHECK(random);
    bred += random ? 0 : 1;
    measured += c.status == "measured" ? 1 : 0;
  }
  CHECK(measured >= 16);
  CHECK(bred > 0);

  // Stopped after 20 candidates and resumed, with the layers' and the original's records of the
  // run above (so the same timings): the same 30 candidates.
  search::TuningDb other(nasc::test::freshPath("search", "search_evolution_resumed.db"));
  for (const search::TuningRecord &record : db.all())
    if (record.search != result.identity)
      other.add(record);
  search::SearchOptions resume = options;
  resume.resume = true;
  int progressed = 0;
  search::runSearch(
      model, resume, other, [&](const search::Progress &) { ++progressed; },
      [&] { return progressed == 20; });
  CHECK(other.searchRecords(result.identity).size() == 20);
  const search::SearchResult resumed = runSmall(model, resume, other);
  REQUIRE(resumed.candidates.size() == 30);
  for (size_t i = 0; i < result.candidates.size(); ++i) {
    INFO(i);
    CHECK(texts(resumed.candidates[i].steps) == texts(result.candidates[i].steps));
    CHECK(resumed.candidates[i].estimate == result.candidates[i].estimate);
  }
}

TEST_CASE("a measurement with the caches evicted before each run passes the bytes to its child",
          "[search][child]") {
  const ir::Graph graph = nas::loadForTraining(smallModel());
  const search::ConvWorkload workload = search::convWorkloads(graph).at(1);
  search::MeasureOptions options = smallOptions(1).measure;
  options.flushBytes = 1 << 20;
  const search::Measurement m = search::measure(workload.graph, {}, options);
  CHECK(m.relativeError < 1e-5);
  CHECK(m.seconds > 0);
  const std::string echo =
      script("flush.sh", "case \"$*\" in *'--flush-bytes 1048576 '*) echo '{\"seconds\": 0.25, "
                         "\"relative_error\": 0, \"compile_seconds\": 0}';; esac");
  CHECK(search::measureInChild(workload.graph, {}, options, echo, 120).seconds == 0.25);
  options.flushBytes = 0;
  CHECK_THROWS_WITH(search::measureInChild(workload.graph, {}, options, echo, 120),
                    Catch::Contains("ended by"));
}

TEST_CASE("strategy names round-trip and unknown names are refused", "[search]") {
  CHECK(search::strategyNames() == std::vector<std::string>{"random", "evolution", "layerwise"});
  for (search::Strategy s :
       {search::Strategy::Random, search::Strategy::Evolution, search::Strategy::Layerwise})
    CHECK(search::parseStrategy(search::strategyName(s)) == s);
  CHECK_THROWS_WITH(search::parseStrategy("anneal"),
                    "search: unknown strategy 'anneal' (expected one of random, evolution, "
                    "layerwise)");
}
