// Every temporary directory of a test run (data directories of the servers and CLIs the tests start,
// SQLite files, exports) is made under one directory, removed when the run ends: Jest's workers
// inherit TMPDIR from here, and os.tmpdir() reads it.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-test-run-'));
  process.env.TRACELIGHT_TEST_RUN_DIR = dir;
  process.env.TMPDIR = dir;
};
