// V8's settings for the server process, applied when this module is loaded: main.ts imports it before any
// other, so that they hold from the first allocation of the first module on. (V8 reads this setting at
// every young collection, but the decisions it made before a change stay: set after the modules had loaded,
// it still let V8 decide for sites collected during the start.) The value is checked with every other
// variable by loadConfig, which stops the start on a bad one; here anything but `true` means off.
import * as v8 from 'node:v8';

/**
 * TRACELIGHT_V8_PRETENURING: V8's allocation-site pretenuring stays on only when set to `true`. Off, V8 never
 * decides to allocate the objects made at a place in the code straight into its old generation. Left on, a
 * burst or a lull of requests was enough for it to decide so for objects Node's HTTP layer makes for each
 * request; each of them, dead but old, then kept what it pointed to alive through young collections until a
 * full one, and the writes' p99 at half load was several times what it is without (README, Load).
 */
const pretenuringWanted = (env: NodeJS.ProcessEnv): boolean => env['TRACELIGHT_V8_PRETENURING'] === 'true';

if (!pretenuringWanted(process.env)) v8.setFlagsFromString('--no-allocation-site-pretenuring');
