// The JSON form of a capacity gate report, shared by `nasc capacity --json` and the metadata that
// `nasc mutate --check-capacity` records in the model it writes.
#pragma once

#include "compiler/nas/CapacityGate.h"

#include <string>

namespace nasc::nas {

/// {"legal": b, "policy": P, "reason": R, "proxies": {NAME: {"original": x, "new": y}, ...},
///  "decisions": {POLICY: b, ...}}, the measured proxies in capacityProxyNames order, the report's
/// decisions in policyNames order; synflow's values are natural logs (CapacityProfile); ±infinity
/// (jacob_cov of a singular kernel, ln synflow of a network without flow) written as ±1e308.
/// `indent` as nlohmann::json::dump (-1: one line).
std::string capacityJson(const CapacityReport &report, int indent);

/// `value` as a JSON number: ±infinity (JSON has none) as ±1e308, every other value unchanged.
double jsonNumber(double value);

} // namespace nasc::nas
