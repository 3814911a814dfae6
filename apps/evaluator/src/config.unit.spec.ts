// The evaluator's configuration: where its probes listen, read as the server reads its own port and host.
import * as E from 'fp-ts/Either';
import { loadEvaluatorConfig } from './config';

describe('loadEvaluatorConfig', () => {
  it('serves no HTTP unless TRACELIGHT_EVALUATOR_PORT is set, on TRACELIGHT_HOST (127.0.0.1 by default)', () => {
    expect(loadEvaluatorConfig({})).toEqual(E.right(expect.objectContaining({ port: undefined, host: '127.0.0.1' })));
    expect(loadEvaluatorConfig({ TRACELIGHT_EVALUATOR_PORT: '' })).toEqual(E.right(expect.objectContaining({ port: undefined })));
    expect(loadEvaluatorConfig({ TRACELIGHT_EVALUATOR_PORT: '9464', TRACELIGHT_HOST: '10.0.0.5' })).toEqual(E.right(expect.objectContaining({ port: 9464, host: '10.0.0.5' })));
    expect(loadEvaluatorConfig({ TRACELIGHT_EVALUATOR_PORT: '0' })).toEqual(E.right(expect.objectContaining({ port: 0 })));
    expect(loadEvaluatorConfig({ TRACELIGHT_EVALUATOR_PORT: '65535' })).toEqual(E.right(expect.objectContaining({ port: 65535 })));
  });

  it.each(['65536', '-1', '80.5', 'ninety', ' 80', '1e3', '999999'])('refuses TRACELIGHT_EVALUATOR_PORT=%j, naming it', (bad) => {
    expect(loadEvaluatorConfig({ TRACELIGHT_EVALUATOR_PORT: bad })).toEqual(E.left([`TRACELIGHT_EVALUATOR_PORT must be an integer from 0 to 65535, got ${JSON.stringify(bad)}`]));
  });

  it('reports a bad port with every other problem', () => {
    const result = loadEvaluatorConfig({ TRACELIGHT_EVALUATOR_PORT: 'x', TRACELIGHT_CREDENTIAL_CACHE_MS: 'y' });
    expect(E.isLeft(result) && result.left).toEqual([
      'TRACELIGHT_CREDENTIAL_CACHE_MS must be a whole number from 0 to 600000, got "y"',
      'TRACELIGHT_EVALUATOR_PORT must be an integer from 0 to 65535, got "x"',
    ]);
  });
});
