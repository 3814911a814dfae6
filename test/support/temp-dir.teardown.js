// Removes the run's temporary directory (see temp-dir.setup.js).
const fs = require('node:fs');

module.exports = async () => {
  const dir = process.env.TRACELIGHT_TEST_RUN_DIR;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
};
