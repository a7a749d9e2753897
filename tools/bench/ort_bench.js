#!/usr/bin/env node
// ONNX Runtime (CPU) latency of one ONNX model: the speed yardstick nasc is compared against.
//
// Usage: node ort_bench.js MODEL.onnx [--threads N] [--repeat R]
//   Loads MODEL with intraOpNumThreads=N (default 1), interOpNumThreads=1, sequential execution
//   and all graph optimizations; feeds uniform [-1, 1) float32 inputs of the model's declared
//   input shapes (symbolic or unknown dimensions are taken as 1); runs once to warm up, then
//   R timed runs (default 20). Prints one machine-readable line: `ort_median_ms <ms>`.
//   Errors (bad arguments, unreadable model, non-float32 input) print one line and exit 1.
'use strict';

const ort = require('onnxruntime-node');

/** Parses argv into {model, threads, repeat}; throws Error naming the bad argument. */
function parseArgs(argv) {
  const args = { model: null, threads: 1, repeat: 20 };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    if (arg === '--threads' || arg === '--repeat') {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value <= 0) {
        throw new Error(`${arg} needs a positive integer, got '${argv[i]}'`);
      }
      args[arg.slice(2)] = value;
    } else if (args.model === null && !arg.startsWith('--')) {
      args.model = arg;
    } else {
      throw new Error(`unexpected argument '${arg}'`);
    }
  }
  if (args.model === null) {
    throw new Error('usage: ort_bench.js MODEL.onnx [--threads N] [--repeat R]');
  }
  return args;
}

/** Concrete shape of an input's metadata: symbolic / unknown dimensions become 1. */
function concreteShape(inputMetadata) {
  return inputMetadata.shape.map((dim) => (typeof dim === 'number' && dim > 0 ? dim : 1));
}

/** Feeds {name: float32 Tensor} with values uniform in [-1, 1) for every model input. */
function randomFeeds(session) {
  const feeds = {};
  session.inputNames.forEach((name, index) => {
    const metadata = session.inputMetadata[index];
    if (metadata.isTensor === false || metadata.type !== 'float32') {
      throw new Error(`input '${name}' is not a float32 tensor (type ${metadata.type})`);
    }
    const shape = concreteShape(metadata);
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    for (let k = 0; k < data.length; ++k) data[k] = 2 * Math.random() - 1;
    feeds[name] = new ort.Tensor('float32', data, shape);
  });
  return feeds;
}

/** Median of a non-empty array of numbers (mean of the middle two for even lengths). */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Loads the model, warms up once, times `repeat` runs; resolves to the median in ms. */
async function benchmark({ model, threads, repeat }) {
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = randomFeeds(session);
  await session.run(feeds);
  const times = [];
  for (let r = 0; r < repeat; ++r) {
    const start = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  await session.release();
  return median(times);
}

Promise.resolve()
  .then(() => benchmark(parseArgs(process.argv.slice(2))))
  .then((ms) => console.log(`ort_median_ms ${ms.toFixed(3)}`))
  .catch((err) => {
    console.error(`ort_bench.js: ${err.message.split('\n')[0]}`);
    process.exit(1);
  });
