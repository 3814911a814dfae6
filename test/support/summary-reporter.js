// Ends every Jest run with plain lines that any CI can read: "N passed, N failed, N skipped", then the
// same by kind of test (unit, int, e2e, by the spec file's name), and the engine when the run names one
// (the MongoDB run: `['…/summary-reporter.js', { engine: 'MongoDB' }]`). Written at process exit so
// that they come after Jest's own summary.
const fs = require('node:fs');

const KINDS = ['unit', 'int', 'e2e'];
const kindOf = (file) => KINDS.find((kind) => file.endsWith(`.${kind}.spec.ts`)) ?? 'other';
const counts = (c) => `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;

class SummaryReporter {
  constructor(_globalConfig, options = {}) {
    this.engine = options.engine;
  }

  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const byKind = new Map();
    for (const file of results.testResults) {
      const kind = kindOf(file.testFilePath);
      const c = byKind.get(kind) ?? { passed: 0, failed: 0, skipped: 0 };
      c.passed += file.numPassingTests;
      c.failed += file.numFailingTests;
      c.skipped += file.numPendingTests + file.numTodoTests;
      byKind.set(kind, c);
    }
    const on = this.engine ? ` on ${this.engine}` : '';
    const kinds = [...KINDS, 'other'].filter((k) => byKind.has(k)).map((k) => `${k}: ${counts(byKind.get(k))}`);
    // A spec file that fails before any test (it does not load, a hook throws) counts no failed test.
    const broken = results.numRuntimeErrorTestSuites > 0 ? `, ${results.numRuntimeErrorTestSuites} spec file(s) failed to run` : '';
    const lines = [
      `tests${on}: ${counts({ passed: results.numPassedTests, failed: results.numFailedTests, skipped })}${broken}`,
      ...(kinds.length > 1 ? [`  by kind${on}: ${kinds.join('; ')}`] : []),
    ];
    process.once('exit', () => fs.writeSync(2, `\n${lines.join('\n')}\n`));
  }
}
module.exports = SummaryReporter;
