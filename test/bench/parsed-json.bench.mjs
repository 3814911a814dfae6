// What parsed JSON takes in V8's heap per byte of its text, for shapes of tiny values: the ground of the
// weight TRACELIGHT_BODY_BUDGET gives a body parsed on the request thread (DECODED_BODY_WEIGHT in the HTTP
// adapter). Each text is about 2–5 MB; the heap is measured after a full collection, with the parsed
// value alive. Asserts nothing.
//   node --expose-gc test/bench/parsed-json.bench.mjs
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

const N = 1_000_000;
const list = (items) => `[${items.join(',')}]`;
const SHAPES = [
  ['empty objects [{},{},…]', () => list(Array(N).fill('{}'))],
  ['empty arrays [[],[],…]', () => list(Array(N).fill('[]'))],
  ['objects of unique keys {"0":0,"1":0,…}', () => `{${Array.from({ length: N / 4 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`],
  ['one-key objects [{"a":0},…]', () => list(Array(Math.floor(N / 3)).fill('{"a":0}'))],
  ['zeros [0,0,…]', () => list(Array(N).fill('0'))],
  ['empty strings ["",…]', () => list(Array(N).fill('""'))],
  ['one long string ("x…")', () => JSON.stringify('x'.repeat(3 * N))],
];

const heapUsed = () => {
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};

console.log(`Parsed JSON in V8's heap — node ${process.version}`);
console.log('shape'.padEnd(40), 'text MB'.padStart(8), 'heap MB'.padStart(8), 'heap bytes a text byte'.padStart(24));
let kept = null;
for (const [name, make] of SHAPES) {
  kept = null;
  const text = make();
  const before = heapUsed();
  kept = JSON.parse(text);
  const taken = heapUsed() - before;
  console.log(name.padEnd(40), (text.length / 1e6).toFixed(2).padStart(8), (taken / 1e6).toFixed(1).padStart(8), (taken / text.length).toFixed(1).padStart(24));
}
if (kept === null) throw new Error('nothing parsed');
