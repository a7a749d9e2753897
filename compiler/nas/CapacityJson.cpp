#include "compiler/nas/CapacityJson.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace nasc::nas {

double jsonNumber(double value) { return std::isinf(value) ? std::copysign(1e308, value) : value; }

std::string capacityJson(const CapacityReport &report, int indent) {
  nlohmann::ordered_json proxies = nlohmann::ordered_json::object();
  for (const std::string &name : capacityProxyNames())
    if (report.original.proxies.count(name))
      proxies[name] = {{"original", jsonNumber(report.original.proxies.at(name))},
                       {"new", jsonNumber(report.transformed.proxies.at(name))}};
  nlohmann::ordered_json decisions = nlohmann::ordered_json::object();
  for (const Decision &d : report.decisions)
    decisions[policyName(d.policy)] = d.legal;
  const nlohmann::ordered_json out = {{"legal", report.decision.legal},
                                      {"policy", policyName(report.decision.policy)},
                                      {"reason", report.decision.reason},
                                      {"proxies", proxies},
                                      {"decisions", decisions}};
  return out.dump(indent);
}

} // namespace nasc::nas
