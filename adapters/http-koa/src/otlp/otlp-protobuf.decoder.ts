// OTLP/HTTP protobuf trace exports read straight off the wire into OtelSpans: field by field, with
// protobufjs's reader for varints, fixed64s and strings (proto3 strings verified as UTF-8), and no
// message objects in between (decoding every field of an export into protobufjs's messages, then into
// plain objects, then into spans took three quarters of an OTLP ingest's time in a profile).
import { OTEL_EVENT_NAMES, type OtelAttributes, type OtelEvent, type OtelSpan, type OtelValue } from '@tracelight/domain';
import * as protobuf from 'protobufjs';
import { OtlpDecodeFailure } from './otlp.decoder';

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;

type Reader = protobuf.Reader;

/** Bytes that are no OTLP export: said as "not an OTLP protobuf trace export: …" (decodeOtlpProtobuf). */
class Malformed extends Error {}

/** Where a length-delimited field's bytes end; the reader then stands at their start. */
const endOf = (r: Reader): number => {
  const length = r.uint32();
  const end = r.pos + length;
  if (end > r.len) throw new Malformed('a field runs past the end of its message');
  return end;
};

/** The field's tag, checked to be of the wire type its number has in OTLP (else the export is bad data). */
const expect = (wire: number, wanted: number, what: string): void => {
  if (wire !== wanted) throw new Malformed(`${what} is not encoded as OTLP declares it`);
};

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;

/** A fixed64, exactly (two 32-bit halves, low first). */
const fixed64 = (r: Reader): bigint => {
  const low = r.fixed32();
  const high = r.fixed32();
  return (BigInt(high) << 32n) | BigInt(low);
};

/** An int64 varint as the JSON decoder reads one: a number where one holds it exactly, else its digits. */
const int64 = (r: Reader): number | string => {
  const long = r.int64() as unknown as { low: number; high: number } | number;
  if (typeof long === 'number') return long;
  const whole = BigInt.asIntN(64, (BigInt(long.high >>> 0) << 32n) | BigInt(long.low >>> 0));
  return whole >= MIN_SAFE && whole <= MAX_SAFE ? Number(whole) : whole.toString();
};

/**
 * An AnyValue. Where several of its fields are set, the one the JSON decoder reads first wins (string,
 * bool, int, double, array, key-value list, bytes), so both read an export alike.
 */
const anyValue = (r: Reader, end: number): OtelValue => {
  let string: string | undefined;
  let bool: boolean | undefined;
  let int: number | string | undefined;
  let double: number | undefined;
  let array: OtelValue[] | undefined;
  let kvlist: Record<string, OtelValue> | undefined;
  let bytes: string | undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    const wire = tag & 7;
    switch (tag >>> 3) {
      case 1:
        expect(wire, BYTES, 'a string value');
        string = r.stringVerify();
        break;
      case 2:
        expect(wire, VARINT, 'a bool value');
        bool = r.bool();
        break;
      case 3:
        expect(wire, VARINT, 'an int value');
        int = int64(r);
        break;
      case 4:
        expect(wire, FIXED64, 'a double value');
        double = r.double();
        break;
      case 5: {
        expect(wire, BYTES, 'an array value');
        const arrayEnd = endOf(r);
        array ??= [];
        while (r.pos < arrayEnd) {
          const t = r.uint32();
          if (t >>> 3 === 1) {
            expect(t & 7, BYTES, 'an array entry');
            array.push(anyValue(r, endOf(r)));
          } else r.skipType(t & 7);
        }
        break;
      }
      case 6: {
        expect(wire, BYTES, 'a key-value list');
        const listEnd = endOf(r);
        kvlist ??= Object.create(null) as Record<string, OtelValue>;
        while (r.pos < listEnd) {
          const t = r.uint32();
          if (t >>> 3 === 1) {
            expect(t & 7, BYTES, 'a key-value list entry');
            keyValue(r, endOf(r), kvlist);
          } else r.skipType(t & 7);
        }
        break;
      }
      case 7:
        expect(wire, BYTES, 'a bytes value');
        bytes = Buffer.from(r.bytes()).toString('base64');
        break;
      default:
        r.skipType(wire);
    }
  }
  return string ?? bool ?? int ?? double ?? array ?? kvlist ?? bytes ?? null;
};

/**
 * A KeyValue into `into` (keys are the sender's: `into` has no prototype). One without a key is left out,
 * as the JSON decoder leaves it; one without a value is null.
 */
const keyValue = (r: Reader, end: number, into: Record<string, OtelValue>): void => {
  let key: string | undefined;
  let value: OtelValue = null;
  while (r.pos < end) {
    const tag = r.uint32();
    const wire = tag & 7;
    const field = tag >>> 3;
    if (field === 1) {
      expect(wire, BYTES, 'an attribute key');
      key = r.stringVerify();
    } else if (field === 2) {
      expect(wire, BYTES, 'an attribute value');
      value = anyValue(r, endOf(r));
    } else r.skipType(wire);
  }
  if (key !== undefined) into[key] = value;
};

const attributesOf = (r: Reader, end: number, into: Record<string, OtelValue>): void => keyValue(r, end, into);
const newAttributes = (): Record<string, OtelValue> => Object.create(null) as Record<string, OtelValue>;

/** An Event's name, and its attributes where the mapping reads events of that name (OTEL_EVENT_NAMES). */
const event = (r: Reader, end: number): OtelEvent | undefined => {
  const start = r.pos;
  let name = '';
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 2) {
      expect(tag & 7, BYTES, 'an event name');
      name = r.stringVerify();
    } else r.skipType(tag & 7);
  }
  if (!OTEL_EVENT_NAMES.has(name)) return undefined;
  // Read again for its attributes, wherever they stand among its fields.
  r.pos = start;
  const attributes = newAttributes();
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 3) {
      expect(tag & 7, BYTES, 'an event attribute');
      attributesOf(r, endOf(r), attributes);
    } else r.skipType(tag & 7);
  }
  return { name, attributes };
};

const hexOf = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;
const ZEROS = /^0+$/;

/** A Span (its index within its scope's spans names it in errors, as the JSON decoder's do). */
const span = (r: Reader, end: number, i: number, resource: OtelAttributes, scope: OtelSpan['scope']): OtelSpan => {
  let traceId = '';
  let spanId = '';
  let parent = '';
  let name = '';
  let start = 0n;
  let finish = 0n;
  const attributes = newAttributes();
  const events: OtelEvent[] = [];
  let code = 0;
  let message = '';
  while (r.pos < end) {
    const tag = r.uint32();
    const wire = tag & 7;
    switch (tag >>> 3) {
      case 1:
        expect(wire, BYTES, 'a trace id');
        traceId = hexOf(r.bytes());
        break;
      case 2:
        expect(wire, BYTES, 'a span id');
        spanId = hexOf(r.bytes());
        break;
      case 4:
        expect(wire, BYTES, 'a parent span id');
        parent = hexOf(r.bytes());
        break;
      case 5:
        expect(wire, BYTES, 'a span name');
        name = r.stringVerify();
        break;
      case 7:
        expect(wire, FIXED64, 'a start time');
        start = fixed64(r);
        break;
      case 8:
        expect(wire, FIXED64, 'an end time');
        finish = fixed64(r);
        break;
      case 9:
        expect(wire, BYTES, 'a span attribute');
        attributesOf(r, endOf(r), attributes);
        break;
      case 11: {
        expect(wire, BYTES, 'a span event');
        const kept = event(r, endOf(r));
        // The first of each name the mapping reads, as the JSON decoder keeps them.
        if (kept !== undefined && !events.some((e) => e.name === kept.name)) events.push(kept);
        break;
      }
      case 15: {
        expect(wire, BYTES, 'a span status');
        const statusEnd = endOf(r);
        while (r.pos < statusEnd) {
          const t = r.uint32();
          if (t >>> 3 === 2) {
            expect(t & 7, BYTES, 'a status message');
            message = r.stringVerify();
          } else if (t >>> 3 === 3) {
            expect(t & 7, VARINT, 'a status code');
            code = r.int32();
          } else r.skipType(t & 7);
        }
        break;
      }
      default:
        r.skipType(wire);
    }
  }
  if (!HEX_TRACE.test(traceId) || ZEROS.test(traceId)) throw new OtlpDecodeFailure(`span ${i} has no valid traceId`);
  if (!HEX_SPAN.test(spanId) || ZEROS.test(spanId)) throw new OtlpDecodeFailure(`span ${i} has no valid spanId`);
  return {
    traceId,
    spanId,
    parentSpanId: HEX_SPAN.test(parent) && !ZEROS.test(parent) ? parent : null,
    name,
    startTimeUnixNano: start,
    endTimeUnixNano: finish,
    attributes,
    events,
    status: { code, message },
    resource,
    scope,
  };
};

/** The fields numbered `field` of the message from here to `end`: where each one's bytes start and end. */
const fieldsOf = (r: Reader, end: number, field: number, what: string): Array<readonly [number, number]> => {
  const found: Array<readonly [number, number]> = [];
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === field) {
      expect(tag & 7, BYTES, what);
      const fieldEnd = endOf(r);
      found.push([r.pos, fieldEnd]);
      r.pos = fieldEnd;
    } else r.skipType(tag & 7);
  }
  return found;
};

/** A ScopeSpans' spans, with its scope (read first, wherever it stands among its fields). */
const scopeSpans = (r: Reader, end: number, resource: OtelAttributes, into: OtelSpan[]): void => {
  const start = r.pos;
  let name = '';
  let version = '';
  for (const [from, to] of fieldsOf(r, end, 1, 'a scope')) {
    r.pos = from;
    while (r.pos < to) {
      const t = r.uint32();
      if (t >>> 3 === 1) {
        expect(t & 7, BYTES, 'a scope name');
        name = r.stringVerify();
      } else if (t >>> 3 === 2) {
        expect(t & 7, BYTES, 'a scope version');
        version = r.stringVerify();
      } else r.skipType(t & 7);
    }
  }
  const scope = { name, version };
  r.pos = start;
  let i = 0;
  for (const [from, to] of fieldsOf(r, end, 2, 'a span')) {
    r.pos = from;
    into.push(span(r, to, i++, resource, scope));
  }
  r.pos = end;
};

/** A ResourceSpans' spans, with its resource's attributes (read first, wherever they stand). */
const resourceSpans = (r: Reader, end: number, into: OtelSpan[]): void => {
  const start = r.pos;
  const resource = newAttributes();
  for (const [from, to] of fieldsOf(r, end, 1, 'a resource')) {
    r.pos = from;
    while (r.pos < to) {
      const t = r.uint32();
      if (t >>> 3 === 1) {
        expect(t & 7, BYTES, 'a resource attribute');
        attributesOf(r, endOf(r), resource);
      } else r.skipType(t & 7);
    }
  }
  r.pos = start;
  for (const [from, to] of fieldsOf(r, end, 2, 'scope spans')) {
    r.pos = from;
    scopeSpans(r, to, resource, into);
  }
  r.pos = end;
};

/**
 * The spans of an OTLP protobuf trace export. Malformed bytes (a field past the end, a field in another
 * wire type than OTLP declares, invalid UTF-8 in a string, nesting past the stack) are an
 * OtlpDecodeFailure, never a crash.
 */
export const decodeOtlpProtobuf = (body: Uint8Array): OtelSpan[] => {
  const spans: OtelSpan[] = [];
  try {
    const r = protobuf.Reader.create(body);
    for (const [from, to] of fieldsOf(r, body.length, 1, 'resource spans')) {
      r.pos = from;
      resourceSpans(r, to, spans);
    }
  } catch (e) {
    if (e instanceof OtlpDecodeFailure) throw e;
    throw new OtlpDecodeFailure(`not an OTLP protobuf trace export: ${e instanceof Error ? e.message : String(e)}`);
  }
  return spans;
};

