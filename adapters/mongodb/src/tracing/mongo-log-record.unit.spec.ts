// A record as stored in MongoDB and read back, without a server: through BSON, as the driver sends and
// receives documents.
import { aProject, aRecord, aRun, aUser } from '@tracelight/testkit';
import { BSON } from 'mongodb';
import { recordFromDocument, recordToDocument } from './mongo-log-record.repository';

const run = aRun(aProject(aUser().id));
const throughBson = (d: object) => BSON.deserialize(BSON.serialize(d));

describe('a log record’s document', () => {
  it.each([
    ['strings', 'a prompt', 'an answer'],
    ['JSON values', { messages: [{ role: 'user', content: 'hi' }] }, [1, 'two', { three: 3 }]],
    ['a number and null', 42, null],
    ['empty strings', '', ''],
  ])('comes back as it was sent, input and output %s', (_, input, output) => {
    const record = aRecord(run, { input, output });
    expect(recordFromDocument(throughBson(recordToDocument(record)))).toEqual(record);
  });

  it('keeps the OTLP root key of a trace record made from a root span, and reads a document without one as a record without one', () => {
    const record = aRecord(run, { otelRootKey: '01700000000000000000/1111111111111111' });
    expect(recordFromDocument(throughBson(recordToDocument(record)))).toEqual(record);
    expect(recordFromDocument(throughBson(recordToDocument(aRecord(run))))).not.toHaveProperty('otelRootKey');
  });

  it('stores a string input or output once, as its search copy, and any other value beside its text', () => {
    const prompt = 'p'.repeat(100_000);
    const stored = throughBson(recordToDocument(aRecord(run, { input: prompt, output: { text: prompt } })));
    expect(stored).not.toHaveProperty('input');
    expect(stored['inputText']).toBe(prompt);
    expect(stored['output']).toEqual({ text: prompt });
    expect(stored['outputText']).toBe(JSON.stringify({ text: prompt }));
    expect(BSON.calculateObjectSize(stored)).toBeLessThan(3.1 * prompt.length);
  });

  it('reads a document written before, with a string input stored in both fields', () => {
    const record = aRecord(run, { input: 'a prompt', output: 'an answer' });
    const before = { ...recordToDocument(record), input: record.input, output: record.output };
    expect(recordFromDocument(throughBson(before))).toEqual(record);
  });
});
