#include "ir/Graph.h"

#include "ir/Error.h"

#include <sstream>

namespace nasc::ir {

namespace {

template <typename T>
T getAs(const Node &node, const std::string &attr, const T &fallback, const char *kind) {
  auto it = node.attributes.find(attr);
  if (it == node.attributes.end())
    return fallback;
  if (const T *v = std::get_if<T>(&it->second))
    return *v;
  throw Error(node.describe() + ": attribute '" + attr + "' must be " + kind);
}

} // namespace

int64_t Node::getInt(const std::string &attr, int64_t fallback) const {
  return getAs<int64_t>(*this, attr, fallback, "an INT");
}

float Node::getFloat(const std::string &attr, float fallback) const {
  return getAs<float>(*this, attr, fallback, "a FLOAT");
}

std::string Node::getString(const std::string &attr, const std::string &fallback) const {
  return getAs<std::string>(*this, attr, fallback, "a STRING");
}

std::vector<int64_t> Node::getInts(const std::string &attr,
                                   const std::vector<int64_t> &fallback) const {
  return getAs<std::vector<int64_t>>(*this, attr, fallback, "INTS");
}

std::string Node::describe() const { return "node '" + name + "' (" + op_type + ")"; }

const Shape &Graph::shapeOf(const std::string &value) const {
  auto it = values.find(value);
  if (it == values.end())
    throw Error(source + ": value '" + value + "' has no known shape");
  return it->second.shape;
}

std::optional<size_t> Graph::producerOf(const std::string &value) const {
  for (size_t k = 0; k < nodes.size(); ++k)
    for (const auto &out : nodes[k].outputs)
      if (out == value)
        return k;
  return std::nullopt;
}

std::vector<size_t> Graph::consumersOf(const std::string &value) const {
  std::vector<size_t> result;
  for (size_t k = 0; k < nodes.size(); ++k)
    for (const auto &in : nodes[k].inputs)
      if (in == value) {
        result.push_back(k);
        break;
      }
  return result;
}

namespace {

template <typename T> std::string listToString(const std::vector<T> &v) {
  std::ostringstream os;
  os << "[";
  for (size_t k = 0; k < v.size(); ++k)
    os << (k ? ", " : "") << v[k];
  os << "]";
  return os.str();
}

std::string attributeToString(const Attribute &a) {
  std::ostringstream os;
  if (auto i = std::get_if<int64_t>(&a))
    os << *i;
  else if (auto f = std::get_if<float>(&a))
    os << *f;
  else if (auto s = std::get_if<std::string>(&a))
    os << '"' << *s << '"';
  else if (auto is = std::get_if<std::vector<int64_t>>(&a))
    os << listToString(*is);
  else if (auto fs = std::get_if<std::vector<float>>(&a))
    os << listToString(*fs);
  else
    os << "tensor " << shapeToString(std::get<Tensor>(a).shape);
  return os.str();
}

} // namespace

std::string Graph::toString() const {
  std::ostringstream os;
  auto typed = [&](const std::string &v) {
    auto it = values.find(v);
    return v + (it == values.end() ? "" : ": " + shapeToString(it->second.shape));
  };
  os << "graph " << name << "\n";
  for (const auto &in : inputs)
    os << "  input " << typed(in) << "\n";
  for (const auto &[wname, w] : initializers)
    os << "  weight " << wname << ": " << shapeToString(w.shape) << "\n";
  for (const auto &node : nodes) {
    os << "  " << node.name << " = " << node.op_type << "(";
    for (size_t k = 0; k < node.inputs.size(); ++k)
      os << (k ? ", " : "") << node.inputs[k];
    os << ")";
    for (const auto &[aname, value] : node.attributes)
      os << " " << aname << "=" << attributeToString(value);
    os << " -> ";
    for (size_t k = 0; k < node.outputs.size(); ++k)
      os << (k ? ", " : "") << typed(node.outputs[k]);
    os << "\n";
  }
  for (const auto &out : outputs)
    os << "  output " << typed(out) << "\n";
  return os.str();
}

} // namespace nasc::ir
