/* Loads a model compiled by `nasc compile` (through its C ABI), runs it on a synthetic image,
 * prints the top-5 classes of the first output and the median latency over 10 runs.
 * Build: cc -DNASC_MODEL_HEADER='"model.h"' classify.c -L. -lmodel */
#define _POSIX_C_SOURCE 199309L
#include NASC_MODEL_HEADER /* the header written by `nasc compile --header` */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int64_t elements(const int64_t *dims, int rank) {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d)
    n *= dims[d];
  return n;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void print_top5(const float *scores, int64_t n) {
  int best[5] = {-1, -1, -1, -1, -1};
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < 5; ++k)
      if (best[k] < 0 || scores[i] > scores[best[k]]) {
        for (int j = 4; j > k; --j)
          best[j] = best[j - 1];
        best[k] = (int)i;
        break;
      }
  printf("top-5 classes:");
  for (int k = 0; k < 5 && k < n; ++k)
    printf(" %d (%.4f)", best[k], scores[best[k]]);
  printf("\n");
}

int main(void) {
  nasc_model *model = nasc_model_create();
  if (!model) {
    fprintf(stderr, "nasc_model_create failed\n");
    return 1;
  }
  int64_t in_dims[8], out_dims[8];
  int in_rank = nasc_model_input_shape(model, 0, in_dims);
  int out_rank = nasc_model_output_shape(model, 0, out_dims);
  int64_t in_n = elements(in_dims, in_rank), out_n = elements(out_dims, out_rank);
  float *input = malloc(sizeof(float) * (size_t)in_n);
  float *output = malloc(sizeof(float) * (size_t)out_n);
  for (int64_t i = 0; i < in_n; ++i)
    input[i] = (float)((i * 37) % 255) / 255.0f - 0.5f;
  const float *inputs[1] = {input};
  float *outputs[1] = {output};
  double times[10];
  for (int r = 0; r < 10; ++r) {
    double t0 = now_seconds();
    if (nasc_model_run(model, inputs, outputs) != 0) {
      fprintf(stderr, "nasc_model_run: %s\n", nasc_model_last_error(model));
      return 1;
    }
    times[r] = now_seconds() - t0;
  }
  qsort(times, 10, sizeof(double), compare_double);
  printf("model input '%s' (%d-d, %lld elements), output '%s' (%lld elements)\n",
         nasc_model_input_name(model, 0), in_rank, (long long)in_n, nasc_model_output_name(model, 0),
         (long long)out_n);
  print_top5(output, out_dims[out_rank - 1]);
  printf("latency: %.2f ms (median of 10 runs)\n", 1e3 * times[5]);
  free(input);
  free(output);
  nasc_model_destroy(model);
  return 0;
}
