#include "LowerInterpreter.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace nasc::lowertest {

namespace {

int64_t evaluate(const ir::AffineExpr &e, const std::vector<int64_t> &point) {
  int64_t v = e.constant;
  for (size_t i = 0; i < point.size(); ++i)
    v += e.coeffs.at(i) * point[i];
  return v;
}

bool satisfies(const ir::Statement &st, const std::vector<int64_t> &point) {
  for (const auto &c : st.constraints) {
    int64_t v = evaluate(c.expr, point);
    if (c.equality ? v != 0 : v < 0)
      return false;
  }
  return true;
}

void visitBox(const ir::Statement &st, std::vector<int64_t> &point, size_t d,
              const std::function<void(const std::vector<int64_t> &)> &visit) {
  if (d == st.depth()) {
    if (satisfies(st, point))
      visit(point);
    return;
  }
  for (point[d] = 0; point[d] < st.extents[d]; ++point[d])
    visitBox(st, point, d + 1, visit);
}

/// Row-major offset of `a` at `point`, or -1 if out of bounds.
int64_t offsetOf(const ir::Kernel &kernel, const ir::Access &a, const std::vector<int64_t> &point) {
  const ir::Shape &shape = kernel.tensors.at(static_cast<size_t>(a.tensor)).shape;
  if (a.index.size() != shape.size())
    return -1;
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t x = evaluate(a.index[d], point);
    if (x < 0 || x >= shape[d])
      return -1;
    offset = offset * shape[d] + x;
  }
  return offset;
}

void collectAccesses(const ir::Expr &e, std::vector<const ir::Access *> &out) {
  if (e.op == ir::Expr::Op::Load)
    out.push_back(&e.access);
  for (const auto &arg : e.args)
    collectAccesses(arg, out);
}

std::string pointText(const std::vector<int64_t> &point) {
  std::string s;
  for (int64_t x : point)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return "(" + s + ")";
}

float evaluate(const ir::Kernel &kernel, const ir::Expr &e, const std::vector<int64_t> &point,
               const std::vector<std::vector<float> *> &tensors) {
  using Op = ir::Expr::Op;
  if (e.op == Op::Const)
    return e.value;
  if (e.op == Op::Load) {
    int64_t offset = offsetOf(kernel, e.access, point);
    if (offset < 0)
      throw std::runtime_error("out-of-bounds read at " + pointText(point));
    return (*tensors.at(static_cast<size_t>(e.access.tensor)))[static_cast<size_t>(offset)];
  }
  float a = evaluate(kernel, e.args[0], point, tensors);
  float b = evaluate(kernel, e.args[1], point, tensors);
  switch (e.op) {
  case Op::Add:
    return a + b;
  case Op::Sub:
    return a - b;
  case Op::Mul:
    return a * b;
  case Op::Div:
    return a / b;
  case Op::Max:
    return std::max(a, b);
  case Op::Min:
    return std::min(a, b);
  default:
    throw std::runtime_error("bad expression");
  }
}

} // namespace

void forEachPoint(const ir::Statement &st,
                  const std::function<void(const std::vector<int64_t> &)> &visit) {
  std::vector<int64_t> point(st.depth(), 0);
  visitBox(st, point, 0, visit);
}

std::vector<std::string> outOfBoundsAccesses(const ir::Kernel &kernel) {
  std::vector<std::string> problems;
  for (const auto &st : kernel.statements) {
    std::vector<const ir::Access *> accesses{&st.write};
    collectAccesses(st.value, accesses);
    std::string problem;
    forEachPoint(st, [&](const std::vector<int64_t> &point) {
      for (const ir::Access *a : accesses)
        if (problem.empty() && offsetOf(kernel, *a, point) < 0)
          problem = kernel.name + "." + st.name + ": tensor " +
                    kernel.tensors.at(static_cast<size_t>(a->tensor)).name + " at " +
                    pointText(point);
    });
    if (!problem.empty())
      problems.push_back(problem);
  }
  return problems;
}

void runKernel(const ir::Kernel &kernel, std::vector<std::vector<float> *> tensors) {
  for (const auto &st : kernel.statements)
    forEachPoint(st, [&](const std::vector<int64_t> &point) {
      int64_t offset = offsetOf(kernel, st.write, point);
      if (offset < 0)
        throw std::runtime_error(kernel.name + "." + st.name + ": out-of-bounds write");
      float &w = (*tensors.at(static_cast<size_t>(st.write.tensor)))[static_cast<size_t>(offset)];
      float v = evaluate(kernel, st.value, point, tensors);
      if (st.update == ir::Update::Assign)
        w = v;
      else if (st.update == ir::Update::Add)
        w = w + v;
      else
        w = std::max(w, v);
    });
}

std::vector<std::vector<float>> runProgram(const ir::Program &program,
                                           const std::vector<std::vector<float>> &inputs) {
  std::vector<std::vector<float>> buffers;
  for (const auto &b : program.buffers)
    buffers.push_back(b.kind == ir::BufferKind::Constant
                          ? b.data.f
                          : std::vector<float>(static_cast<size_t>(ir::numElements(b.shape)),
                                               std::numeric_limits<float>::quiet_NaN()));
  for (size_t k = 0; k < program.inputs.size(); ++k)
    buffers.at(static_cast<size_t>(program.inputs[k])) = inputs.at(k);
  for (const auto &call : program.calls) {
    std::vector<std::vector<float> *> args;
    for (int b : call.args)
      args.push_back(&buffers.at(static_cast<size_t>(b)));
    runKernel(call.kernel, args);
  }
  std::vector<std::vector<float>> outputs;
  for (int b : program.outputs)
    outputs.push_back(buffers.at(static_cast<size_t>(b)));
  return outputs;
}

} // namespace nasc::lowertest
