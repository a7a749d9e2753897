#include "compiler/nas/CapacityJson.h"
#include "compiler/nas/FisherMeasurement.h"
#include "tools/nasc/Commands.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

namespace nasc::cli {

namespace {

struct FisherArgs {
  std::string model, weights = "init", bn, proxy = "fisher";
  int64_t batch = 128;
  uint64_t seed = 0;
  int seeds = 3;
  bool json = false;
};

void printJson(const nas::FisherMeasurement &m, const std::string &proxy) {
  using nas::jsonNumber;
  nlohmann::ordered_json layers = nlohmann::ordered_json::object(), layersStd = layers;
  for (size_t k = 0; k < m.layers.size(); ++k) {
    layers[m.layers[k]] = jsonNumber(m.layerValues[k].mean);
    layersStd[m.layers[k]] = jsonNumber(m.layerValues[k].std);
  }
  nlohmann::ordered_json out = {
      {"total", jsonNumber(m.total.mean)},
      {"layers", layers},
      {"seeds", m.totals.size()},
      {"proxy", proxy},
      {"std", {{"total", jsonNumber(m.total.std)}, {"layers", layersStd}}}};
  std::cout << out.dump(1) << "\n";
}

/// One line per layer and the total: mean and std over the runs; synflow's (natural logs,
/// FisherMeasurement.h logMeanStd) under the headings "ln synflow" and "std (ln)", in fixed point.
void printTable(const nas::FisherMeasurement &m, const std::string &proxy) {
  const bool ln = proxy == "synflow";
  const char *format = ln ? "%-60s %14.6f %14.6f\n" : "%-60s %14.6e %14.6e\n";
  std::printf("%-60s %14s %14s\n", "layer (conv output)", ln ? "ln synflow" : proxy.c_str(),
              ln ? "std (ln)" : "std");
  for (size_t k = 0; k < m.layers.size(); ++k)
    std::printf(format, m.layers[k].c_str(), m.layerValues[k].mean, m.layerValues[k].std);
  std::printf(format, "total", m.total.mean, m.total.std);
  std::printf("(%zu run%s)\n", m.totals.size(), m.totals.size() == 1 ? "" : "s");
}

void fisher(const FisherArgs &args) {
  nas::FisherOptions options;
  options.batch = args.batch;
  options.seed = args.seed;
  options.seeds = args.seeds;
  options.initWeights = args.weights == "init";
  options.insertBn = args.bn.empty() ? options.initWeights : args.bn == "insert";
  options.proxy = nas::parseProxy(args.proxy);
  const nas::FisherMeasurement m = nas::measureFisher(args.model, options);
  if (args.json)
    printJson(m, args.proxy);
  else
    printTable(m, args.proxy);
}

} // namespace

void addFisherCommand(CLI::App &app) {
  auto args = std::make_shared<FisherArgs>();
  CLI::App *cmd = app.add_subcommand("fisher", "Fisher Potential (or another zero-cost "
                                               "proxy, --proxy) of MODEL per conv layer "
                                               "and in total (docs/capacity.md): one "
                                               "training-mode step on the first --batch "
                                               "Fashion-MNIST training images");
  cmd->add_option("MODEL", args->model, "Model file (.onnx or .json)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--batch", args->batch, "Images in the batch (overrides the model's batch)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the first He initialisation")
      ->capture_default_str();
  cmd->add_option("--seeds", args->seeds, "Initialisations averaged (with --weights init)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--weights", args->weights, "init: fresh He init; model: the model's weights")
      ->check(CLI::IsMember({"init", "model"}))
      ->capture_default_str();
  cmd->add_option("--bn", args->bn,
                  "insert: a training-mode BN after every Conv that feeds "
                  "none; keep: the graph "
                  "as is (default: insert with --weights init, keep with "
                  "--weights model)")
      ->check(CLI::IsMember({"insert", "keep"}));
  cmd->add_option("--proxy", args->proxy,
                  "fisher: Fisher Potential; synflow: Σ|W dR/dW| with |weights|, no BN, "
                  "ones input, printed as its natural log (ln synflow, per layer and in "
                  "total); jacob_cov: NASWOT log|det K| of the ReLU codes (no "
                  "layers); snip: "
                  "Σ|W dL/dW|; grad_norm: ||dL/dW||")
      ->check(CLI::IsMember(nas::proxyNames()))
      ->capture_default_str();
  cmd->add_flag("--json", args->json,
                "Print {\"total\": X, \"layers\": {...}, \"seeds\": K, \"proxy\": P, "
                "\"std\": {...}} (synflow: X, the layers and std in natural log; -inf "
                "written as -1e308)");
  cmd->callback([args] { fisher(*args); });
}

} // namespace nasc::cli
