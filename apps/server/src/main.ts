// Starts the Tracelight server: reads the configuration, starts the storage engine (on SQLite its writer
// thread, which loads its code and migrates the database meanwhile, on another core), then loads the rest
// of the server and serves (serve.ts).
// First: V8's settings hold from the first module on.
import './v8-settings';
// Before any adapter: inversify's decorators read and write metadata through it.
import 'reflect-metadata';
import * as E from 'fp-ts/Either';
import * as fs from 'node:fs';
import { CONFIG_VARIABLES, type ServerConfig, loadConfig } from './config';
import { loadEngine } from './engine';
import { loadKeys } from './keys';
import { exit } from './exit';
import { limitLogBuffer } from './logger';
import { startFailure } from './start-failure';

/** The configuration variables as plain text: name, default, then what it does. */
const help = (): string =>
  `Tracelight server: configured by environment variables only.\n\n${CONFIG_VARIABLES.map(
    ([name, dflt, description]) => `${name}  (default: ${dflt.replace(/`/g, '')})\n    ${description.replace(/`/g, '')}\n`,
  ).join('\n')}`;

/** The configuration the start is under, once read: for the words of a failure to start. */
let startingWith: ServerConfig | undefined;

const main = async (): Promise<void> => {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    fs.writeSync(1, help());
    exit(0);
  }
  const config = loadConfig(process.env);
  if (E.isLeft(config)) {
    exit(2, `Tracelight cannot start; fix the configuration:\n${config.left.map((p) => `  - ${p}`).join('\n')}\n`);
  }
  const cfg = config.right;
  startingWith = cfg;
  limitLogBuffer(cfg.logBufferBytes);
  // The keys first: a start they refuse (or whose new key cannot be written) must not have begun a database.
  loadKeys(cfg);
  const engine = await loadEngine(cfg, { early: true });
  // Loaded now, while the writer thread starts: most of the server's code, which the first lines do not need.
  const { serve } = await import('./serve');
  await serve(cfg, engine);
};

main().catch((e: unknown) => {
  // What is the operator's to fix (no room, a path this process may not use, a database it cannot
  // open or reach) says so in one line; anything else, a bug, with its stack trace.
  const words = startFailure(e, startingWith) ?? (e instanceof Error ? (e.stack ?? e.message) : String(e));
  exit(1, `Tracelight failed to start: ${words}\n`);
});
