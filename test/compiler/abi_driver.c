/* Test driver: loads a nasc-compiled library through its C ABI (dlopen), runs it on the raw
 * float32 file argv[2] and writes the first output to argv[3] as raw float32; an optional
 * argv[4] is the thread count passed to nasc_model_set_num_threads before the run. Prints the ABI's
 * view of the model (counts, names, shapes) and checks its error paths. Exit 0 on success; 10
 * (with nasc_model_last_error(NULL) on stderr) if nasc_model_create fails. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct nasc_model nasc_model;

#define LOAD(ret, name, args)                                                               \
  ret(*name) args = (ret(*) args)dlsym(lib, #name);                                         \
  if (!name) {                                                                              \
    fprintf(stderr, "missing symbol %s\n", #name);                                         \
    return 2;                                                                               \
  }

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5)
    return 2;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  LOAD(nasc_model *, nasc_model_create, (void));
  LOAD(void, nasc_model_destroy, (nasc_model *));
  LOAD(int, nasc_model_num_inputs, (const nasc_model *));
  LOAD(int, nasc_model_num_outputs, (const nasc_model *));
  LOAD(int, nasc_model_input_shape, (const nasc_model *, int, int64_t *));
  LOAD(int, nasc_model_output_shape, (const nasc_model *, int, int64_t *));
  LOAD(const char *, nasc_model_input_name, (const nasc_model *, int));
  LOAD(const char *, nasc_model_output_name, (const nasc_model *, int));
  LOAD(int, nasc_model_run, (nasc_model *, const float *const *, float *const *));
  LOAD(const char *, nasc_model_last_error, (const nasc_model *));
  LOAD(int, nasc_model_set_num_threads, (nasc_model *, int));

  nasc_model *m = nasc_model_create();
  if (!m) {
    fprintf(stderr, "%s\n", nasc_model_last_error(NULL));
    return 10;
  }
  int64_t in_dims[8], out_dims[8];
  int in_rank = nasc_model_input_shape(m, 0, in_dims);
  int out_rank = nasc_model_output_shape(m, 0, out_dims);
  int64_t in_n = 1, out_n = 1;
  printf("inputs %d outputs %d input '%s' rank %d output '%s' rank %d\n", nasc_model_num_inputs(m),
         nasc_model_num_outputs(m), nasc_model_input_name(m, 0), in_rank, nasc_model_output_name(m, 0),
         out_rank);
  for (int d = 0; d < in_rank; ++d)
    in_n *= in_dims[d];
  for (int d = 0; d < out_rank; ++d)
    out_n *= out_dims[d];
  if (nasc_model_input_shape(m, 7, in_dims) != -1 || strstr(nasc_model_last_error(m), "out of range") == NULL)
    return 3;
  if (nasc_model_run(m, NULL, NULL) == 0 || strlen(nasc_model_last_error(m)) == 0)
    return 4;
  if (nasc_model_set_num_threads(m, 0) == 0)
    return 5;
  if (argc == 5 && nasc_model_set_num_threads(m, atoi(argv[4])) != 0)
    return 9;

  float *in = malloc(sizeof(float) * (size_t)in_n), *out = malloc(sizeof(float) * (size_t)out_n);
  FILE *f = fopen(argv[2], "rb");
  if (!f || fread(in, sizeof(float), (size_t)in_n, f) != (size_t)in_n)
    return 6;
  fclose(f);
  const float *inputs[1] = {in};
  float *outputs[1] = {out};
  if (nasc_model_run(m, inputs, outputs) != 0) {
    fprintf(stderr, "run failed: %s\n", nasc_model_last_error(m));
    return 7;
  }
  f = fopen(argv[3], "wb");
  if (!f || fwrite(out, sizeof(float), (size_t)out_n, f) != (size_t)out_n)
    return 8;
  fclose(f);
  nasc_model_destroy(m);
  free(in);
  free(out);
  return 0;
}
