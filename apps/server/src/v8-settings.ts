// V8's settings for the server process, applied when this module is loaded: main.ts imports it before any
// other, so that they hold from the first allocation of the first module on. (V8 reads this setting at
// every young collection, but the decisions it made before a change stay: set after the modules had loaded,
// it still let V8 decide for sites collected during the start.) The value is checked with every other
// variable by loadConfig, which stops the start on a bad one; here anything but `true` means off.
// Why off: TRACELIGHT_V8_PRETENURING's row in CONFIG_VARIABLES (./config), and docs/benchmarks.md ("Why V8's allocation-site pretenuring is off").
import * as v8 from 'node:v8';

if (process.env['TRACELIGHT_V8_PRETENURING'] !== 'true') v8.setFlagsFromString('--no-allocation-site-pretenuring');
