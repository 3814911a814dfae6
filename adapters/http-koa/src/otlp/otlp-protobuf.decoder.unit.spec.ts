// The protobuf export read off the wire gives exactly the spans that decoding it through protobufjs's
// messages gives (the reference below), for any export; and bytes that are no export are refused as such.
import type { OtelSpan } from '@tracelight/domain';
import * as fc from 'fast-check';
import * as protobuf from 'protobufjs';
import { decodeOtlpProtobuf } from './otlp-protobuf.decoder';
import { OtlpDecodeFailure, spansOfRequest } from './otlp.decoder';
import { ExportTraceServiceRequest } from './otlp-trace.proto';

/** The reference: protobufjs's decode, its plain objects, then the walk the OTLP/JSON form takes too. */
const reference = (bytes: Uint8Array): OtelSpan[] => {
  let message;
  try {
    message = ExportTraceServiceRequest.decode(bytes);
  } catch (e) {
    throw new OtlpDecodeFailure(`not an OTLP protobuf trace export: ${e instanceof Error ? e.message : String(e)}`);
  }
  return spansOfRequest(ExportTraceServiceRequest.toObject(message, { longs: String, defaults: false, oneofs: false }));
};
const encode = (request: object): Uint8Array => ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish();
const outcome = (f: () => OtelSpan[]) => {
  try {
    return { spans: f() };
  } catch (e) {
    return { failure: e instanceof OtlpDecodeFailure ? e.message : `not a decode failure: ${String(e)}` };
  }
};

const text = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '😀', '.', ' '), maxLength: 8 });
const anyValue: fc.Arbitrary<object> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text.map((stringValue) => ({ stringValue })),
    fc.boolean().map((boolValue) => ({ boolValue })),
    fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((intValue) => ({ intValue: intValue.toString() })),
    fc.double({ noNaN: true }).map((doubleValue) => ({ doubleValue })),
    fc.uint8Array({ maxLength: 4 }).map((bytesValue) => ({ bytesValue })),
    fc.array(tie('value'), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
    fc.array(fc.record({ key: text, value: tie('value') }), { maxLength: 3 }).map((values) => ({ kvlistValue: { values } })),
    fc.constant({}),
  ),
})).value;
const attributes = fc.array(fc.record({ key: fc.constantFrom('input.value', 'llm.model_name', 'session.id', 'x', '__proto__', 'a.b'), value: anyValue }, { requiredKeys: ['key'] }), { maxLength: 5 });
const id = (n: number) => fc.oneof(fc.uint8Array({ minLength: n, maxLength: n }), fc.uint8Array({ maxLength: n + 1 }), fc.constant(new Uint8Array(n)));
const span = fc.record(
  {
    traceId: id(16),
    spanId: id(8),
    parentSpanId: id(8),
    name: text,
    startTimeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
    endTimeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
    attributes,
    events: fc.array(fc.record({ name: fc.constantFrom('exception', 'gen_ai.content.prompt', 'log', 'exception'), attributes, timeUnixNano: fc.constant('5') }), { maxLength: 3 }),
    status: fc.record({ code: fc.integer({ min: -3, max: 3 }), message: text }, { requiredKeys: [] }),
    kind: fc.integer({ min: 0, max: 5 }),
  },
  { requiredKeys: ['traceId', 'spanId'] },
);
const exportRequest = fc.record({
  resourceSpans: fc.array(
    fc.record({
      resource: fc.record({ attributes }),
      scopeSpans: fc.array(fc.record({ scope: fc.record({ name: text, version: text }, { requiredKeys: [] }), spans: fc.array(span, { maxLength: 3 }) }, { requiredKeys: [] }), { maxLength: 2 }),
    }, { requiredKeys: [] }),
    { maxLength: 2 },
  ),
});

describe('an OTLP protobuf export read off the wire', () => {
  it('gives the spans decoding it through protobufjs gives, or the same refusal', () => {
    fc.assert(
      fc.property(exportRequest, (request) => {
        const bytes = encode(request);
        expect(outcome(() => decodeOtlpProtobuf(bytes))).toEqual(outcome(() => reference(bytes)));
      }),
      { numRuns: 500 },
    );
  });

  it('reads a message whose fields come in another order (a resource after its spans, a scope after its spans)', () => {
    const w = protobuf.Writer.create();
    const spanBytes = protobuf.Writer.create();
    spanBytes.uint32((9 << 3) | 2).fork().uint32((1 << 3) | 2).string('k').uint32((2 << 3) | 2).fork().uint32((1 << 3) | 2).string('v').ldelim().ldelim();
    spanBytes.uint32((2 << 3) | 2).bytes(Buffer.from('0000000000000002', 'hex'));
    spanBytes.uint32((1 << 3) | 2).bytes(Buffer.from('0000000000000000000000000000000a', 'hex'));
    const scope = protobuf.Writer.create();
    scope.uint32((2 << 3) | 2).bytes(spanBytes.finish());
    scope.uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).string('late scope').ldelim();
    const resource = protobuf.Writer.create();
    resource.uint32((2 << 3) | 2).bytes(scope.finish());
    resource.uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).string('service.name').uint32((2 << 3) | 2).fork().uint32((1 << 3) | 2).string('late').ldelim().ldelim().ldelim();
    w.uint32((1 << 3) | 2).bytes(resource.finish());
    const bytes = w.finish();
    const spans = decodeOtlpProtobuf(bytes);
    expect(spans).toEqual(reference(bytes));
    expect(spans[0]).toMatchObject({ spanId: '0000000000000002', scope: { name: 'late scope' }, attributes: { k: 'v' } });
    expect({ ...spans[0]!.resource }).toEqual({ 'service.name': 'late' });
  });

  it('refuses bytes that are no export, whatever they are, as a decode failure', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const o = outcome(() => decodeOtlpProtobuf(bytes));
        if ('failure' in o) expect(o.failure).not.toMatch(/^not a decode failure/);
      }),
      { numRuns: 2000 },
    );
    // Truncated, a string of invalid UTF-8, a field in the wrong wire type.
    const whole = encode({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 1), name: 'n' }] }] }] });
    expect(outcome(() => decodeOtlpProtobuf(whole.subarray(0, whole.length - 3)))).toEqual({ failure: expect.stringMatching(/^not an OTLP protobuf trace export: /) });
    const badName = Buffer.from(whole);
    badName[badName.length - 1] = 0xff;
    expect(outcome(() => decodeOtlpProtobuf(badName))).toEqual({ failure: expect.stringMatching(/^not an OTLP protobuf trace export: /) });
    expect(outcome(() => decodeOtlpProtobuf(Buffer.from([0x08, 0x01])))).toEqual({ failure: expect.stringMatching(/^not an OTLP protobuf trace export: resource spans/) });
  });
});
