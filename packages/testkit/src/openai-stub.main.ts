// Runs the OpenAI-compatible stub on its own, for trying evaluation locally without a model provider:
//   node packages/testkit/dist/openai-stub.main.js [port] [answer…]
// Each judge answers the next of the given values in turn (JSON: true, false, 0.8, "good"; default
// true), and each request is printed (model, n, first words of the prompt), never its bearer token.
import { OpenAiStub, judges, lastUserText } from './openai-stub';

const [portArg, ...answers] = process.argv.slice(2);
const values = answers.length === 0 ? [true] : answers.map((a) => {
  try {
    return JSON.parse(a) as unknown;
  } catch {
    return a;
  }
});

void OpenAiStub.start({ port: Number(portArg ?? 0) }).then((stub) => {
  const rule = judges(...values);
  stub.answerWith((request, index) => {
    if (index === 0) process.stdout.write(`judged: model=${request.model} n=${request.n} prompt=${JSON.stringify(lastUserText(request).slice(0, 80))}\n`);
    return rule(request, index);
  });
  process.stdout.write(`OpenAI-compatible stub on ${stub.url} (give it as the gateway endpoint); answers ${JSON.stringify(values)}\n`);
  const stop = () => void stub.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
});
