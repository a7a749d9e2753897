#include "ir/Kernel.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>

namespace nasc::ir {

AffineExpr AffineExpr::iter(size_t depth, size_t i, int64_t coeff) {
  AffineExpr e;
  e.coeffs.assign(depth, 0);
  e.coeffs[i] = coeff;
  return e;
}

AffineExpr AffineExpr::constant_(size_t depth, int64_t c) {
  AffineExpr e;
  e.coeffs.assign(depth, 0);
  e.constant = c;
  return e;
}

AffineExpr AffineExpr::operator+(const AffineExpr &other) const {
  AffineExpr e = *this;
  for (size_t i = 0; i < e.coeffs.size(); ++i)
    e.coeffs[i] += other.coeffs[i];
  e.constant += other.constant;
  return e;
}

AffineExpr AffineExpr::operator-(const AffineExpr &other) const { return *this + other * -1; }

AffineExpr AffineExpr::operator+(int64_t c) const {
  AffineExpr e = *this;
  e.constant += c;
  return e;
}

AffineExpr AffineExpr::operator*(int64_t c) const {
  AffineExpr e = *this;
  for (auto &k : e.coeffs)
    k *= c;
  e.constant *= c;
  return e;
}

std::string AffineExpr::toString(const std::vector<std::string> &iterators) const {
  std::ostringstream os;
  bool first = true;
  auto term = [&](int64_t k, const std::string &name) {
    if (k == 0)
      return;
    if (!first)
      os << (k < 0 ? " - " : " + ");
    else if (k < 0)
      os << "-";
    int64_t a = k < 0 ? -k : k;
    if (name.empty())
      os << a;
    else if (a == 1)
      os << name;
    else
      os << a << "*" << name;
    first = false;
  };
  for (size_t i = 0; i < coeffs.size(); ++i)
    term(coeffs[i], iterators[i]);
  term(constant, "");
  return first ? "0" : os.str();
}

Expr Expr::constant(float v) {
  Expr e;
  e.op = Op::Const;
  e.value = v;
  return e;
}

Expr Expr::load(Access a) {
  Expr e;
  e.op = Op::Load;
  e.access = std::move(a);
  return e;
}

Expr Expr::binary(Op op, Expr lhs, Expr rhs) {
  Expr e;
  e.op = op;
  e.args = {std::move(lhs), std::move(rhs)};
  return e;
}

std::vector<const Access *> loadsOf(const Expr &e) {
  std::vector<const Access *> loads;
  forEachLoad(e, [&](const Access &a) { loads.push_back(&a); });
  return loads;
}

bool Statement::hasReduction() const {
  return std::any_of(reduction.begin(), reduction.end(), [](bool r) { return r; });
}

namespace {

std::string accessToString(const Access &a, const std::vector<std::string> &iterators,
                           const std::vector<std::string> &tensorNames) {
  std::string s = tensorNames.at(static_cast<size_t>(a.tensor)) + "[";
  for (size_t d = 0; d < a.index.size(); ++d)
    s += (d ? ", " : "") + a.index[d].toString(iterators);
  return s + "]";
}

const char *opName(Expr::Op op) {
  switch (op) {
  case Expr::Op::Add:
    return " + ";
  case Expr::Op::Sub:
    return " - ";
  case Expr::Op::Mul:
    return " * ";
  case Expr::Op::Div:
    return " / ";
  case Expr::Op::Max:
    return "max";
  case Expr::Op::Min:
    return "min";
  default:
    return "?";
  }
}

int binaryOps(const Expr &e) {
  int n = e.args.empty() ? 0 : 1;
  for (const auto &a : e.args)
    n += binaryOps(a);
  return n;
}

} // namespace

std::string Expr::toString(const std::vector<std::string> &iterators,
                           const std::vector<std::string> &tensorNames) const {
  switch (op) {
  case Op::Const: {
    std::ostringstream os;
    os << value;
    return os.str();
  }
  case Op::Load:
    return accessToString(access, iterators, tensorNames);
  case Op::Max:
  case Op::Min:
    return std::string(opName(op)) + "(" + args[0].toString(iterators, tensorNames) + ", " +
           args[1].toString(iterators, tensorNames) + ")";
  default:
    return "(" + args[0].toString(iterators, tensorNames) + opName(op) +
           args[1].toString(iterators, tensorNames) + ")";
  }
}

namespace {

/// The statements of `kernel` as Kernel::toString lists them, tensor i called names[i].
std::string statementListing(const Kernel &kernel, const std::vector<std::string> &names) {
  std::ostringstream os;
  static const char *updates[] = {" = ", " += ", " max= "};
  for (const auto &st : kernel.statements) {
    os << "  " << st.name << "[";
    for (size_t i = 0; i < st.depth(); ++i)
      os << (i ? ", " : "") << st.iterators[i] << (st.reduction[i] ? "*" : "") << " < "
         << st.extents[i];
    os << "]";
    for (const auto &c : st.constraints)
      os << " : " << c.expr.toString(st.iterators) << (c.equality ? " == 0" : " >= 0");
    os << "\n    " << accessToString(st.write, st.iterators, names)
       << updates[static_cast<int>(st.update)] << st.value.toString(st.iterators, names) << "\n";
  }
  return os.str();
}

/// Appends the tensors `e` reads, left to right, and the bits of its constants to `uses` and
/// `constants`.
void collectUses(const Expr &e, std::vector<int> &uses, std::string &constants) {
  if (e.op == Expr::Op::Load)
    uses.push_back(e.access.tensor);
  if (e.op == Expr::Op::Const) {
    uint32_t bits = 0;
    std::memcpy(&bits, &e.value, sizeof bits);
    constants += std::to_string(bits) + " ";
  }
  for (const Expr &a : e.args)
    collectUses(a, uses, constants);
}

} // namespace

std::string Kernel::toString() const {
  std::ostringstream os;
  std::vector<std::string> names;
  os << "kernel " << name << "\n";
  for (const auto &t : tensors) {
    names.push_back(t.name);
    os << "  tensor " << t.name << " : " << shapeToString(t.shape) << "\n";
  }
  return os.str() + statementListing(*this, names);
}

KernelStructure kernelStructure(const Kernel &kernel) {
  std::vector<int> uses;
  std::string constants;
  for (const Statement &st : kernel.statements) {
    uses.push_back(st.write.tensor);
    collectUses(st.value, uses, constants);
  }
  for (size_t t = 0; t < kernel.tensors.size(); ++t)
    uses.push_back(static_cast<int>(t));
  KernelStructure structure;
  std::vector<std::string> names(kernel.tensors.size());
  for (int t : uses) {
    size_t index = static_cast<size_t>(t);
    if (index >= names.size() || !names[index].empty())
      continue;
    names[index] = "t" + std::to_string(structure.tensorOrder.size());
    structure.tensorOrder.push_back(index);
  }
  std::ostringstream os;
  for (size_t index : structure.tensorOrder)
    os << names[index] << " : " << shapeToString(kernel.tensors[index].shape) << "\n";
  structure.key = os.str() + statementListing(kernel, names) + "constants " + constants;
  return structure;
}

double Kernel::flops() const {
  double total = 0;
  for (const auto &st : statements) {
    double points = 1;
    for (int64_t e : st.extents)
      points *= static_cast<double>(e);
    int ops = binaryOps(st.value) + (st.update == Update::Assign ? 0 : 1);
    total += points * ops;
  }
  return total;
}

std::string toIdentifier(const std::string &name) {
  std::string s;
  for (char ch : name)
    s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    s = "v_" + s;
  return s;
}

} // namespace nasc::ir
