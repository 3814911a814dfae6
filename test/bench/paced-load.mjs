// An open-loop load generator that sends requests at an even rate, for latency at a given load.
//
// autocannon's `overallRate` lets each connection send as fast as it can until it has made its share
// for the current second, then waits for the next second: the load arrives in bursts at the full
// rate, and its coordinated-omission correction then adds a synthetic sample for every millisecond
// of each slow answer. Its p99 "at half rate" is close to its p99 at full rate. This one schedules
// request i at start + i / rate and sends it on any idle keep-alive connection. A timer looks every
// millisecond for requests that have come due; a request's latency runs from that moment, not from
// when a connection was free: a request that waits for a connection counts its wait (coordinated
// omission, as wrk2 measures it), and only the timer's granularity (requests leave in bursts of up to
// a millisecond's worth, a slightly harsher load than a perfectly even one) is not counted.
import { fork } from 'node:child_process';
import * as net from 'node:net';
import { fileURLToPath } from 'node:url';

const HEADER_END = Buffer.from('\r\n\r\n');

/** Status and length of the response at the start of `buf`, once its headers are in; else null. */
const readHead = (buf) => {
  const end = buf.indexOf(HEADER_END);
  if (end < 0) return null;
  const head = buf.subarray(0, end).toString('latin1');
  const status = Number(head.slice(9, 12));
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (!m) throw new Error(`paced load: a response without Content-Length (status ${status})`);
  return { status, total: end + 4 + Number(m[1]) };
};

/**
 * Drives `target` ({ url, method, headers, body }) at `rate` requests a second over `connections`
 * keep-alive connections for `seconds` (the first one is warm-up and not counted). Resolves to
 * { sent, answered, non2xx, p50, p99, max } with latencies in ms.
 */
export const pacedLoad = async ({ url, method = 'GET', headers = {}, body }, { rate, connections = 32, seconds = 10 }) => {
  const u = new URL(url);
  const payload = body === undefined ? '' : String(body);
  const head = [`${method} ${u.pathname}${u.search} HTTP/1.1`, `Host: ${u.host}`, 'Connection: keep-alive'];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  if (body !== undefined || method !== 'GET') head.push(`Content-Length: ${Buffer.byteLength(payload)}`);
  const request = Buffer.from(`${head.join('\r\n')}\r\n\r\n${payload}`);

  const sockets = await Promise.all(
    Array.from({ length: connections }, () =>
      new Promise((resolve, reject) => {
        const s = net.connect({ host: u.hostname, port: Number(u.port) }, () => resolve(s));
        s.setNoDelay(true);
        s.once('error', reject);
      }),
    ),
  );

  const latencies = [];
  let non2xx = 0;
  let answered = 0;
  const idle = [];
  const t0 = performance.now();
  const warmUntil = t0 + 1000;
  const stopAt = t0 + seconds * 1000;
  const total = Math.ceil(seconds * rate);
  const readyAt = new Float64Array(total); // when the timer found request i due
  let scheduled = 0; // requests whose time has come, sent or waiting for a connection
  let sent = 0;

  const send = (conn) => {
    conn.dueAt = readyAt[sent++];
    conn.socket.write(request);
  };
  const pump = () => {
    while (sent < scheduled && idle.length > 0) send(idle.pop());
  };

  let finish;
  let fail;
  let finished = false;
  const done = new Promise((resolve, reject) => {
    finish = () => {
      finished = true;
      resolve();
    };
    fail = reject;
  });
  for (const socket of sockets) {
    const conn = { socket, buf: Buffer.alloc(0), dueAt: 0 };
    // A connection lost mid-run would leave its request unanswered forever: fail loudly instead.
    socket.on('error', (e) => fail(e));
    socket.on('close', () => finished || fail(new Error('paced load: the server closed a connection mid-run')));
    socket.on('data', (chunk) => {
      conn.buf = conn.buf.length === 0 ? chunk : Buffer.concat([conn.buf, chunk]);
      const headOf = readHead(conn.buf);
      if (!headOf || conn.buf.length < headOf.total) return;
      conn.buf = conn.buf.subarray(headOf.total);
      const now = performance.now();
      answered++;
      if (conn.dueAt >= warmUntil) {
        latencies.push(now - conn.dueAt);
        if (headOf.status < 200 || headOf.status > 299) non2xx++;
      }
      idle.push(conn);
      pump();
    });
    idle.push(conn);
  }

  const tick = () => {
    if (finished) return; // failed
    const now = performance.now();
    if (now >= stopAt) {
      // Every request scheduled so far gets its answer before the figures are taken.
      const wait = () => (finished ? undefined : answered >= sent && sent >= scheduled ? finish() : setTimeout(wait, 1));
      return wait();
    }
    const nowDue = Math.min(Math.floor(((now - t0) * rate) / 1000) + 1, total);
    while (scheduled < nowDue) readyAt[scheduled++] = now;
    pump();
    setTimeout(tick, 1);
  };
  tick();
  try {
    await done;
  } finally {
    finished = true;
    for (const s of sockets) s.destroy();
  }

  const sorted = Float64Array.from(latencies).sort();
  const at = (q) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
  return { sent, answered, non2xx, p50: at(0.5), p99: at(0.99), max: at(1) };
};

/**
 * pacedLoad in a Node process of its own, started for this run: what it measures is then the server's
 * latency and the machine's, not the garbage the calling process has gathered (a bench that has run
 * many autocannon rounds collects its old generation every second or so, and each pause of its event
 * loop delays the answers it reads, counted as latency).
 */
export const pacedLoadInOwnProcess = (target, options) =>
  new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result;
    child.once('message', (m) => (result = m));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 && result && !result.error ? resolve(result) : reject(new Error(`paced load: ${result?.error ?? `its process exited with ${code}`}`))));
    child.send({ target, options });
  });

// Run as a child of pacedLoadInOwnProcess: one run, its figures sent back.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', ({ target, options }) =>
    pacedLoad(target, options).then(
      (r) => process.send(r, () => process.disconnect()),
      (e) => process.send({ error: String(e?.stack ?? e) }, () => process.disconnect()),
    ),
  );
}
