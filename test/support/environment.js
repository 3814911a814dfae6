// The test environment of every suite: Node's, plus a last word once a test file is done, whatever happened
// in it (a failing beforeAll or afterAll included): everything the file started and did not stop (servers
// in processes of their own, in-process stubs) is stopped, so that no process outlives the run and Jest
// always exits. What the helpers start registers itself (test/support/started.ts).
const { TestEnvironment } = require('jest-environment-node');

/** The longest a leftover is waited for once told to stop; a process is then killed outright. */
const STOP_MS = 10_000;

class TracelightEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testFile = require('node:path').relative(config.projectConfig.rootDir, context.testPath);
  }

  async setup() {
    await super.setup();
    // Where what the file starts registers itself (test/support/started.ts; the testkit's OpenAI stub).
    this.global.__tracelightStarted = new Set();
  }

  async teardown() {
    const started = this.global.__tracelightStarted;
    if (started && started.size > 0) {
      const left = [...started];
      started.clear();
      process.stderr.write(`${this.testFile}: stopping ${left.length} left running by its tests: ${left.map((s) => s.name).join(', ')}\n`);
      await Promise.all(left.map((s) => Promise.race([s.stop().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, STOP_MS).unref())])));
    }
    await super.teardown();
  }
}

module.exports = TracelightEnvironment;
