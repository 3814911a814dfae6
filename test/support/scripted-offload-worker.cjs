// A stand-in for the offload worker that speaks its protocol and does what a test tells it through
// workerData: refuses to start while the file `failStartWhile` exists, dies on a request for the route
// `DIE`, holds requests for the route `HOLD` unanswered until one for `RELEASE` comes, reports 3 dropped
// log lines of stdout on one for `DROP`, and answers any other request (and the held ones then) 200 with
// the route it got. The pool under test is the real one.
const fs = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');

if (workerData.failStartWhile && fs.existsSync(workerData.failStartWhile)) {
  parentPort.postMessage({ type: 'failed', message: 'no room to open the storage' });
} else {
  const held = [];
  const answer = (m) => parentPort.postMessage({ type: 'reply', id: m.id, reply: { status: 200, body: { route: m.request.route, bytes: m.request.body.byteLength } } });
  parentPort.on('message', (m) => {
    if (m.type === 'close') process.exit(0);
    if (m.request.route === 'DIE') process.exit(1);
    if (m.request.route === 'HOLD') return held.push(m);
    if (m.request.route === 'RELEASE') held.splice(0).forEach(answer);
    if (m.request.route === 'DROP') parentPort.postMessage({ type: 'dropped-log-lines', stream: 'stdout', lines: 3 });
    answer(m);
  });
  parentPort.postMessage({ type: 'ready' });
}
