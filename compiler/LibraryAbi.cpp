#include "compiler/LibraryAbi.h"

#include "ir/Error.h"

#include <sstream>

namespace nasc::compiler {

namespace {

const char *kAbiBody = R"abi(
void nasc_parallel_for(void (*body)(void *, int64_t, int64_t), void *ctx, int64_t lb, int64_t ub,
                       int32_t threads) {
  int64_t n = ub - lb;
  if (n <= 0)
    return;
  if (threads <= 1 || n == 1) {
    body(ctx, lb, ub);
    return;
  }
  int teams = (int)(n < threads ? n : threads);
#pragma omp parallel num_threads(teams)
  {
    int64_t t = omp_get_thread_num(), count = omp_get_num_threads();
    int64_t begin = lb + n * t / count, end = lb + n * (t + 1) / count;
    if (begin < end)
      body(ctx, begin, end);
  }
}

struct nasc_model {
  float *workspace;
  int num_threads;
  char error[256];
};

static int valid_index(const nasc_model *m, int i, int n, const char *what) {
  if (i >= 0 && i < n)
    return 1;
  if (m)
    snprintf(((nasc_model *)m)->error, sizeof m->error, "%s index %d out of range [0, %d)", what, i, n);
  return 0;
}

static int copy_shape(const int *ranks, const int64_t (*dims)[8], int i, int64_t *out) {
  for (int d = 0; d < ranks[i]; ++d)
    out[d] = dims[i][d];
  return ranks[i];
}

static _Thread_local char create_error[256];

static int cpu_lacks_features(void) {
  char missing[160] = "";
  for (int i = 0; i < NUM_CPU_CHECKS; ++i)
    if (!cpu_checks[i].present()) {
      size_t used = strlen(missing);
      snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "", cpu_checks[i].name);
    }
  if (!missing[0])
    return 0;
  snprintf(create_error, sizeof create_error,
           "nasc_model_create: this library was compiled for CPU '%s' (%s); this CPU lacks %s",
           TARGET_CPU, TARGET_TRIPLE, missing);
  return 1;
}

nasc_model *nasc_model_create(void) {
  if (cpu_lacks_features())
    return NULL;
  nasc_model *m = (nasc_model *)calloc(1, sizeof(nasc_model));
  if (!m)
    return NULL;
  size_t bytes = ((size_t)PREFIX(workspace_bytes) + 63) / 64 * 64;
  if (bytes > 0) {
    m->workspace = (float *)aligned_alloc(64, bytes);
    if (!m->workspace) {
      free(m);
      return NULL;
    }
  }
  m->num_threads = DEFAULT_THREADS;
  return m;
}

void nasc_model_destroy(nasc_model *m) {
  if (!m)
    return;
  free(m->workspace);
  free(m);
}

int nasc_model_num_inputs(const nasc_model *m) { (void)m; return NUM_INPUTS; }
int nasc_model_num_outputs(const nasc_model *m) { (void)m; return NUM_OUTPUTS; }

int nasc_model_input_shape(const nasc_model *m, int i, int64_t *dims) {
  if (!valid_index(m, i, NUM_INPUTS, "input") || !dims)
    return -1;
  return copy_shape(input_ranks, input_dims, i, dims);
}

int nasc_model_output_shape(const nasc_model *m, int i, int64_t *dims) {
  if (!valid_index(m, i, NUM_OUTPUTS, "output") || !dims)
    return -1;
  return copy_shape(output_ranks, output_dims, i, dims);
}

const char *nasc_model_input_name(const nasc_model *m, int i) {
  return valid_index(m, i, NUM_INPUTS, "input") ? input_names[i] : NULL;
}

const char *nasc_model_output_name(const nasc_model *m, int i) {
  return valid_index(m, i, NUM_OUTPUTS, "output") ? output_names[i] : NULL;
}

int nasc_model_run(nasc_model *m, const float *const *inputs, float *const *outputs) {
  if (!m)
    return -1;
  if (!inputs || !outputs) {
    snprintf(m->error, sizeof m->error, "nasc_model_run: inputs and outputs must not be NULL");
    return -1;
  }
  for (int i = 0; i < NUM_INPUTS; ++i)
    if (!inputs[i]) {
      snprintf(m->error, sizeof m->error, "nasc_model_run: input %d ('%s') is NULL", i, input_names[i]);
      return -1;
    }
  for (int i = 0; i < NUM_OUTPUTS; ++i)
    if (!outputs[i]) {
      snprintf(m->error, sizeof m->error, "nasc_model_run: output %d ('%s') is NULL", i, output_names[i]);
      return -1;
    }
  PREFIX(run)(inputs, outputs, m->workspace, m->num_threads);
  m->error[0] = 0;
  return 0;
}

const char *nasc_model_last_error(const nasc_model *m) {
  if (m)
    return m->error;
  return create_error[0] ? create_error : "model is NULL";
}

const char *nasc_model_target(void) { return "triple " TARGET_TRIPLE ", cpu " TARGET_CPU; }

int nasc_model_set_num_threads(nasc_model *m, int n) {
  if (!m)
    return -1;
  if (n < 1) {
    snprintf(m->error, sizeof m->error, "nasc_model_set_num_threads: %d is not a positive count", n);
    return -1;
  }
  m->num_threads = n;
  return 0;
}
)abi";

const char *kAbiDeclarations = R"abi(typedef struct nasc_model nasc_model;

/* Creates a model instance (its workspace is allocated here). NULL if this CPU lacks a feature
   the library was compiled for (nasc_model_last_error(NULL) names it) or if out of memory. */
nasc_model *nasc_model_create(void);
/* Frees a model instance; NULL is allowed. */
void nasc_model_destroy(nasc_model *model);
int nasc_model_num_inputs(const nasc_model *model);
int nasc_model_num_outputs(const nasc_model *model);
/* Writes the shape of input/output i into dims (room for 8) and returns its rank; -1 if i is out of range. */
int nasc_model_input_shape(const nasc_model *model, int i, int64_t *dims);
int nasc_model_output_shape(const nasc_model *model, int i, int64_t *dims);
const char *nasc_model_input_name(const nasc_model *model, int i);
const char *nasc_model_output_name(const nasc_model *model, int i);
/* Runs the model: inputs and outputs are dense NCHW float32 buffers in graph order.
   Returns 0 on success; otherwise see nasc_model_last_error. Not thread-safe per instance. */
int nasc_model_run(nasc_model *model, const float *const *inputs, float *const *outputs);
/* The message of the last failing call on `model`; with NULL, why the calling thread's last
   nasc_model_create failed. */
const char *nasc_model_last_error(const nasc_model *model);
/* The target the library was compiled for: "triple T, cpu C". */
const char *nasc_model_target(void);
/* Sets the number of threads used by parallel loops (>= 1; the default is the library's,
   `nasc compile --threads`); returns 0 on success. */
int nasc_model_set_num_threads(nasc_model *model, int n);
)abi";

std::string cString(const std::string &s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\';
    out += ch;
  }
  return out + "\"";
}

/// The ABI reports shapes in 8-slot arrays (nasc_model_input_shape's `dims`).
void checkRank(const ir::Buffer &buffer, const std::string &kind) {
  if (buffer.shape.size() > 8)
    throw Error("model " + kind + " '" + buffer.name + "' has rank " +
                std::to_string(buffer.shape.size()) +
                "; the C ABI of a compiled library supports at most 8 dimensions");
}

void emitTable(std::ostringstream &os, const ir::Program &program, const std::vector<int> &ids,
               const std::string &kind) {
  size_t n = ids.size();
  for (int id : ids)
    checkRank(program.buffers[static_cast<size_t>(id)], kind);
  os << "static const char *" << kind << "_names[" << (n ? n : 1) << "] = {";
  for (int id : ids)
    os << cString(program.buffers[static_cast<size_t>(id)].name) << ", ";
  os << "};\nstatic const int " << kind << "_ranks[" << (n ? n : 1) << "] = {";
  for (int id : ids)
    os << program.buffers[static_cast<size_t>(id)].shape.size() << ", ";
  os << "};\nstatic const int64_t " << kind << "_dims[" << (n ? n : 1) << "][8] = {";
  for (int id : ids) {
    os << "{";
    for (int64_t d : program.buffers[static_cast<size_t>(id)].shape)
      os << d << ", ";
    os << "}, ";
  }
  os << "};\n";
}

/// The C table `cpu_checks` of the features a library for `target` checks in nasc_model_create
/// (codegen::runtimeCheckedFeatures; on x86 through __builtin_cpu_supports, which names them as
/// LLVM does), with TARGET_TRIPLE and TARGET_CPU.
void emitCpuChecks(std::ostringstream &os, const codegen::Target &target) {
  std::vector<std::string> features = codegen::runtimeCheckedFeatures(target);
  os << "#define TARGET_TRIPLE " << cString(target.triple) << "\n#define TARGET_CPU "
     << cString(target.cpu) << "\n#define NUM_CPU_CHECKS " << features.size() << "\n";
  for (size_t i = 0; i < features.size(); ++i)
    os << "static int has_feature_" << i << "(void) { __builtin_cpu_init(); return "
       << "__builtin_cpu_supports(" << cString(features[i]) << "); }\n";
  os << "static const struct { const char *name; int (*present)(void); } cpu_checks["
     << (features.empty() ? 1 : features.size()) << "] = {";
  for (size_t i = 0; i < features.size(); ++i)
    os << "{" << cString(features[i]) << ", has_feature_" << i << "}, ";
  os << "};\n";
}

void describeTensors(std::ostringstream &os, const ir::Program &program,
                     const std::vector<int> &ids, const std::string &kind) {
  for (size_t i = 0; i < ids.size(); ++i) {
    const ir::Buffer &b = program.buffers[static_cast<size_t>(ids[i])];
    os << " *   " << kind << " " << i << ": '" << b.name << "' float32 "
       << ir::shapeToString(b.shape) << "\n";
  }
}

} // namespace

std::string libraryAbiSource(const ir::Program &program, const std::string &prefix,
                             const codegen::Target &target, int defaultThreads) {
  std::ostringstream os;
  os << "/* Generated by nasc: C ABI of model '" << program.name << "'. */\n"
     << "#include <omp.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
     << "#include <string.h>\n\n"
     << "#define PREFIX(name) " << prefix << "##name\n"
     << "#define NUM_INPUTS " << program.inputs.size() << "\n"
     << "#define NUM_OUTPUTS " << program.outputs.size() << "\n"
     << "#define DEFAULT_THREADS " << (defaultThreads > 0 ? defaultThreads : 1) << "\n"
     << "extern void PREFIX(run)(const float *const *inputs, float *const *outputs, float "
        "*workspace,\n"
     << "                        int32_t threads);\n"
     << "extern const int64_t PREFIX(workspace_bytes);\n"
     << kAbiDeclarations;
  emitTable(os, program, program.inputs, "input");
  emitTable(os, program, program.outputs, "output");
  emitCpuChecks(os, target);
  os << kAbiBody;
  return os.str();
}

std::string libraryAbiHeader(const ir::Program &program, const codegen::Target &target) {
  std::ostringstream os;
  os << "/* Generated by nasc: C ABI of the compiled model '" << program.name << "'.\n"
     << " * Inputs and outputs are dense row-major (NCHW) float32 buffers:\n";
  describeTensors(os, program, program.inputs, "input ");
  describeTensors(os, program, program.outputs, "output");
  os << " * Compiled for (nasc_model_create returns NULL on a CPU without these features):\n";
  std::istringstream lines(codegen::describeTarget(target));
  for (std::string line; std::getline(lines, line);)
    os << " *   " << line << "\n";
  os << " */\n#pragma once\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << kAbiDeclarations << "\n#ifdef __cplusplus\n}\n#endif\n";
  return os.str();
}

} // namespace nasc::compiler
