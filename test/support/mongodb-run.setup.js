// The MongoDB run's set-up: refuses to start without a MongoDB to run on (the contract suite would skip
// itself and the black-box suites would run on SQLite, passing for the wrong engine), then the usual one.
// What it sets in process.env, Jest's workers inherit.
const tempDirSetup = require('./temp-dir.setup.js');

module.exports = async (...args) => {
  const missing = ['MONGODB_URI', 'TRACELIGHT_E2E_DATABASE_URL'].filter((name) => !(process.env[name] ?? '').startsWith('mongodb'));
  if (missing.length > 0)
    throw new Error(`the MongoDB run needs ${missing.join(' and ')} (mongodb://…): run it as \`pnpm test:mongodb\`, which starts a wire server when MONGODB_URI is unset`);
  // The route fuzzing's properties, a third as many times as on SQLite unless FUZZ_RUNS says: on the wire
  // server each of the two fingerprints a request takes reads every document (its 1,500 took 70 s).
  process.env.FUZZ_RUNS ??= '500';
  await tempDirSetup(...args);
};
