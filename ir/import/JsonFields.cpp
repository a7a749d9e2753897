#include "ir/import/JsonFields.h"

#include "ir/Error.h"

#include <algorithm>

namespace nasc::ir::json_fields {

void fail(const std::string &where, const std::string &field, const std::string &message) {
  throw Error(where + ": field '" + field + "': " + message);
}

void checkObject(const Json &object, std::initializer_list<const char *> known,
                 const std::string &where) {
  if (!object.is_object())
    throw Error(where + ": must be a JSON object");
  for (const auto &item : object.items())
    if (std::none_of(known.begin(), known.end(), [&](const char *k) { return item.key() == k; }))
      fail(where, item.key(), "unknown field");
}

const Json &require(const Json &object, const std::string &field, const std::string &where) {
  auto it = object.find(field);
  if (it == object.end())
    fail(where, field, "missing");
  return *it;
}

std::string stringField(const Json &object, const std::string &field, const std::string &where) {
  const Json &value = require(object, field, where);
  if (!value.is_string())
    fail(where, field, "must be a string");
  return value.get<std::string>();
}

int64_t intField(const Json &object, const std::string &field, const std::string &where) {
  const Json &value = require(object, field, where);
  if (!value.is_number_integer())
    fail(where, field, "must be an integer");
  return value.get<int64_t>();
}

Shape shapeField(const Json &object, const std::string &field, const std::string &where) {
  const Json &value = require(object, field, where);
  if (!value.is_array())
    fail(where, field, "must be an array of non-negative integers");
  Shape shape;
  for (const Json &dim : value) {
    if (!dim.is_number_integer() || dim.get<int64_t>() < 0)
      fail(where, field, "must be an array of non-negative integers");
    shape.push_back(dim.get<int64_t>());
  }
  return shape;
}

std::vector<std::string> namesField(const Json &object, const std::string &field,
                                    const std::string &where) {
  const Json &value = require(object, field, where);
  if (!value.is_array())
    fail(where, field, "must be an array of value names");
  std::vector<std::string> names;
  for (const Json &name : value) {
    if (!name.is_string())
      fail(where, field, "must be an array of value names");
    names.push_back(name.get<std::string>());
  }
  return names;
}

} // namespace nasc::ir::json_fields
