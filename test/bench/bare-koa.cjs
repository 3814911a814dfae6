// The baseline: a bare Koa app answering one small JSON body, nothing else. With BARE_WORK_US it first
// keeps the CPU busy for that many µs on each request: the bench's calibration rows, which show what a
// few µs of work per request cost in throughput on the machine at hand.
const Koa = require(require('node:path').resolve(__dirname, '../../adapters/http-koa/node_modules/koa'));
const workNs = BigInt(Math.round(Number(process.env.BARE_WORK_US ?? 0) * 1000));
const app = new Koa();
app.use((ctx) => {
  if (workNs > 0n) {
    const until = process.hrtime.bigint() + workNs;
    while (process.hrtime.bigint() < until);
  }
  ctx.body = { ok: true, insights: { logstream: { enabled: false, start_time: null } } };
});
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
