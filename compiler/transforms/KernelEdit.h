// Edits of a kernel's statements and tensors shared by the layout transformations (pad_input,
// block_channels), which change a kernel and its program before the Scop is built.
#pragma once

#include "ir/Kernel.h"
#include "ir/Program.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nasc::compiler {

/// The statement named `name` of `kernel`, or nullptr.
const ir::Statement *findStatement(const ir::Kernel &kernel, const std::string &name);
ir::Statement *findStatement(ir::Kernel &kernel, const std::string &name);

/// The statement named `name` of `kernel`, for layout primitive `primitive` (its name starts the
/// message). Throws UnknownStatement when `kernel` has none.
const ir::Statement &requireStatement(const ir::Kernel &kernel, const std::string &name,
                                      const std::string &primitive);

/// Why `st` is not an Add update of a product whose first operand is a load (W += I · ...), the
/// form whose input load pad_input and subsample_input replace; "" when it is.
std::string notInputProduct(const ir::Statement &st);

/// `base`, or `base_1`, `base_2`, ...: the first that names no buffer of `program` and no tensor
/// of `kernel`.
std::string freshTensorName(const ir::Program &program, const ir::Kernel &kernel,
                            const std::string &base);

/// Adds a Temp buffer `shape` named freshTensorName(base) to `program` and binds it as a new
/// tensor of the kernel of program.calls[call]; returns its kernel tensor index.
int addTempTensor(ir::Program &program, size_t call, const std::string &base,
                  const ir::Shape &shape);

/// A statement name "P<k>" that `kernel` does not use, the first with k >= its statement count
/// + `skip` (skip 1 names a second new statement before the first is added).
std::string freshStatementName(const ir::Kernel &kernel, size_t skip = 0);

/// A statement named `name` over the box `shape` (iterators d0, d1, ...) writing `tensor` at
/// index it + offset, with update Assign and no value yet.
ir::Statement boxStatement(const std::string &name, const ir::Shape &shape, int tensor,
                           const std::vector<int64_t> &offset);

/// If `e` is exactly one iterator (coefficient 1, constant 0), that iterator; else -1.
int plainIterator(const ir::AffineExpr &e);

/// Calls `visit` on every access of `st`: its write, then the loads of its value.
void forEachAccess(ir::Statement &st, const std::function<void(ir::Access &)> &visit);
void forEachAccess(const ir::Statement &st, const std::function<void(const ir::Access &)> &visit);

/// Whether `st` writes or loads kernel tensor `tensor`.
bool accessesTensor(const ir::Statement &st, int tensor);

/// The kernel tensor of `call` bound to program buffer `buffer`, or -1.
int tensorOf(const ir::KernelCall &call, int buffer);

/// Removes kernel tensor `t` of `call` (no statement accesses it any more); the tensors after
/// it move down one index.
void unbind(ir::KernelCall &call, int t);

/// The iterators of a split: `outer` (extent / factor) and `inner` (factor), with
/// iterator = factor · outer + inner.
struct SplitIterators {
  size_t outer = 0, inner = 0;
};

/// Splits iterator `d` of `st` (its extent a multiple of `factor`) into d = factor·outer +
/// inner everywhere in the statement (accesses and constraints). `outer` takes d's place and
/// name + "0" ("_0" after a digit); `inner` (name + "1") goes right after iterator `after`
/// (>= d), by default after the last iterator of d's kind (reduction or not), i.e. innermost
/// among them.
SplitIterators splitIterator(ir::Statement &st, size_t d, int64_t factor,
                             std::optional<size_t> after = std::nullopt);

/// Removes iterator `d` of `st`, whose extent is 1 (it is always 0): its coefficients leave
/// every access and constraint.
void removeUnitIterator(ir::Statement &st, size_t d);

/// Merges iterators `outer` and `inner` (extent e) of `st` into one iterator
/// e·outer + inner of extent extent(outer)·e named `name`, in outer's place: the inverse of
/// splitIterator. Both must be of one kind (reduction or not), and every access and constraint
/// must use them only through that combination (the coefficient of outer is e times that of
/// inner); returns false, changing nothing, otherwise.
bool mergeIterators(ir::Statement &st, size_t outer, size_t inner, const std::string &name);

} // namespace nasc::compiler
