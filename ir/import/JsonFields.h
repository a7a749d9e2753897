// Private helpers of the JSON importer: typed field access with errors naming file and field.
#pragma once

#include "ir/Tensor.h"

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>

namespace nasc::ir::json_fields {

using Json = nlohmann::json;

/// nasc::Error "<where>: field '<field>': <message>".
[[noreturn]] void fail(const std::string &where, const std::string &field,
                       const std::string &message);
/// `object` must be a JSON object whose keys are all in `known`.
void checkObject(const Json &object, std::initializer_list<const char *> known,
                 const std::string &where);
/// The field `field` of `object`; throws if absent.
const Json &require(const Json &object, const std::string &field, const std::string &where);
/// A required string field.
std::string stringField(const Json &object, const std::string &field, const std::string &where);
/// A required integer field.
int64_t intField(const Json &object, const std::string &field, const std::string &where);
/// A required shape field: an array of non-negative integers.
Shape shapeField(const Json &object, const std::string &field, const std::string &where);
/// A required array of strings (value names; "" marks an omitted optional input).
std::vector<std::string> namesField(const Json &object, const std::string &field,
                                    const std::string &where);

} // namespace nasc::ir::json_fields
