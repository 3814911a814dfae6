// OTLP/HTTP trace exports, protobuf or JSON, → the neutral OtelSpan model. Malformed input is a
// DecodeFailure (→ 400 with a google.rpc.Status), never a crash.
import { OTEL_EVENT_NAMES, type OtelAttributes, type OtelEvent, type OtelSpan, type OtelValue } from '@tracelight/domain';
import * as protobuf from 'protobufjs';

export class OtlpDecodeFailure extends Error {}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);

/**
 * The entries of one of the export's containers (`resourceSpans`, `scopeSpans`, `spans`): none when it is
 * left out, each an object, or the export is bad data. Read leniently, a container of another type was
 * answered 200 with its spans dropped, and exporters never send again what was answered 200.
 */
const entriesOf = (x: unknown, what: string): Obj[] => {
  if (x === undefined || x === null) return [];
  if (!Array.isArray(x)) throw new OtlpDecodeFailure(`${what} is not a list`);
  for (const [i, e] of x.entries()) if (!isObj(e)) throw new OtlpDecodeFailure(`${what} entry ${i} is not an object`);
  return x as Obj[];
};

/** Ids: bytes in protobuf, hex strings in OTLP/JSON. */
const hexOf = (x: unknown): string => {
  if (x instanceof Uint8Array) return Buffer.from(x).toString('hex');
  if (typeof x === 'string') return x.toLowerCase();
  return '';
};

const MAX_FIXED64 = (1n << 64n) - 1n;

/**
 * A span's start or end time: a whole number of nanoseconds, 0 (or left out) for unset. OTLP/JSON writes a
 * fixed64 as a string of digits, and protobuf's decoding here does too (longs: String); some exporters
 * write a number, read as the double it is (past 2^53, within a few hundred nanoseconds). Anything else
 * (negative, a fraction, an exponent, hex, padded) is bad data, refused, where it was read as unset: the
 * span's real time was then lost without a word, and it sorted and filtered as received now.
 */
const timeOf = (x: unknown, what: string): bigint => {
  if (x === undefined || x === null) return 0n;
  if (typeof x === 'string' && /^\d+$/.test(x)) return BigInt(x);
  if (typeof x === 'number' && Number.isInteger(x) && x >= 0) return BigInt(x);
  throw new OtlpDecodeFailure(`${what} is not a whole number of nanoseconds`);
};

/** Status codes by number, or by name as protobuf's JSON mapping writes an enum. */
const STATUS_CODES: Readonly<Record<string, number>> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

/**
 * A span's status code: its number (an open enum: any whole number), its digits, or its name; unset when
 * left out. Any other value is bad data, refused: read as unset, a failed span looked successful.
 */
const statusCodeOf = (x: unknown, what: string): number => {
  if (x === undefined || x === null) return 0;
  if (typeof x === 'number' && Number.isInteger(x)) return x;
  if (typeof x === 'string' && /^-?\d+$/.test(x)) return Number(x);
  if (typeof x === 'string' && Object.hasOwn(STATUS_CODES, x)) return STATUS_CODES[x]!;
  throw new OtlpDecodeFailure(`${what} is not a status code (0, 1, 2, or STATUS_CODE_UNSET, _OK, _ERROR)`);
};
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;

const nanos = (x: unknown): bigint => {
  if (typeof x === 'bigint') return x;
  if (typeof x === 'number' && Number.isFinite(x)) return BigInt(Math.trunc(x));
  if (typeof x === 'string' && /^\d+$/.test(x)) return BigInt(x);
  if (isObj(x) && typeof x['low'] === 'number' && typeof x['high'] === 'number')
    return (BigInt(x['high'] >>> 0) << 32n) + BigInt(x['low'] >>> 0); // protobufjs Long
  return 0n;
};

/**
 * Parsed JSON can hold an object where a scalar belongs, and one whose own `toString` and `valueOf`
 * are no functions makes String() and Number() throw: such a value is bad data, not a crash.
 */
const scalar = (x: unknown, what: string): string | number | boolean | null | undefined => {
  if (typeof x === 'object' && x !== null) throw new OtlpDecodeFailure(`${what} is not a scalar`);
  return x as string | number | boolean | null | undefined;
};
const textOf = (x: unknown, what: string): string => String(scalar(x, what) ?? '');

const anyValue = (v: unknown): OtelValue => {
  if (!isObj(v)) return null;
  if ('stringValue' in v) return typeof v['stringValue'] === 'string' ? v['stringValue'] : String(scalar(v['stringValue'], 'a stringValue'));
  if ('boolValue' in v) return v['boolValue'] === true;
  if ('intValue' in v) {
    // An int64: as a number where one holds it exactly, else as its exact digits (an id sent as an
    // integer, say), not rounded to the nearest double.
    const raw = v['intValue'];
    const whole = typeof raw === 'object' && raw !== null ? nanos(raw) : typeof raw === 'string' && /^-?\d+$/.test(raw) ? BigInt(raw) : undefined;
    if (whole !== undefined) return whole >= MIN_SAFE && whole <= MAX_SAFE ? Number(whole) : whole.toString();
    const n = Number(raw);
    return Number.isFinite(n) ? n : null;
  }
  if ('doubleValue' in v) return Number(scalar(v['doubleValue'], 'a doubleValue'));
  if ('arrayValue' in v) return arr(isObj(v['arrayValue']) ? v['arrayValue']['values'] : []).map(anyValue);
  if ('kvlistValue' in v) return attributes(isObj(v['kvlistValue']) ? v['kvlistValue']['values'] : []);
  if ('bytesValue' in v) return v['bytesValue'] instanceof Uint8Array ? Buffer.from(v['bytesValue']).toString('base64') : String(scalar(v['bytesValue'], 'a bytesValue'));
  return null;
};

/**
 * Keys are the sender's: no prototype, so an attribute named `__proto__` is just an attribute (on a
 * plain object it became the map's prototype: its entries then answered for keys never sent, such as
 * `input.value`, and it was itself lost).
 */
const attributes = (list: unknown): OtelAttributes => {
  const out: Record<string, OtelValue> = Object.create(null) as Record<string, OtelValue>;
  for (const kv of arr(list)) if (isObj(kv) && typeof kv['key'] === 'string') out[kv['key']] = anyValue(kv['value']);
  return out;
};

/**
 * The events the mapping reads (OTEL_EVENT_NAMES), the first of each name, without their times. The
 * others, which can be many a span (one a log line), cost a name comparison each: their attributes
 * are not converted. Events are a list of objects, or the export is bad data.
 */
const eventsOf = (list: unknown, span: number): OtelEvent[] => {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new OtlpDecodeFailure(`span ${span} has events that are not a list`);
  const kept: OtelEvent[] = [];
  for (const [i, e] of list.entries()) {
    if (!isObj(e)) throw new OtlpDecodeFailure(`span ${span} event ${i} is not an object`);
    const name = e['name'];
    if (typeof name === 'string' && OTEL_EVENT_NAMES.has(name) && !kept.some((k) => k.name === name))
      kept.push({ name, attributes: attributes(e['attributes']) });
  }
  return kept;
};

const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;

/** Walks resourceSpans → scopeSpans → spans of a decoded request (protobufjs object or parsed JSON). */
export const spansOfRequest = (request: unknown): OtelSpan[] => {
  if (!isObj(request)) throw new OtlpDecodeFailure('expected an ExportTraceServiceRequest object');
  const spans: OtelSpan[] = [];
  for (const [r, rs] of entriesOf(request['resourceSpans'], 'resourceSpans').entries()) {
    const resource = attributes(isObj(rs['resource']) ? rs['resource']['attributes'] : []);
    for (const [c, ss] of entriesOf(rs['scopeSpans'], `resourceSpans[${r}].scopeSpans`).entries()) {
      const scopeObj = isObj(ss['scope']) ? ss['scope'] : {};
      const scope = { name: textOf(scopeObj['name'], 'a scope name'), version: textOf(scopeObj['version'], 'a scope version') };
      for (const [i, s] of entriesOf(ss['spans'], `resourceSpans[${r}].scopeSpans[${c}].spans`).entries()) {
        const traceId = hexOf(s['traceId']);
        const spanId = hexOf(s['spanId']);
        const parent = hexOf(s['parentSpanId']);
        if (!HEX_TRACE.test(traceId) || /^0+$/.test(traceId)) throw new OtlpDecodeFailure(`span ${i} has no valid traceId`);
        if (!HEX_SPAN.test(spanId) || /^0+$/.test(spanId)) throw new OtlpDecodeFailure(`span ${i} has no valid spanId`);
        if (s['status'] !== undefined && s['status'] !== null && !isObj(s['status'])) throw new OtlpDecodeFailure(`span ${i} has a status that is not an object`);
        const status = isObj(s['status']) ? s['status'] : {};
        const startTimeUnixNano = timeOf(s['startTimeUnixNano'], `span ${i}'s startTimeUnixNano`);
        const endTimeUnixNano = timeOf(s['endTimeUnixNano'], `span ${i}'s endTimeUnixNano`);
        // fixed64 in protobuf; OTLP/JSON writes it as a string, which can hold any number of digits.
        if (startTimeUnixNano > MAX_FIXED64 || endTimeUnixNano > MAX_FIXED64) throw new OtlpDecodeFailure(`span ${i} has a timestamp out of range`);
        spans.push({
          traceId,
          spanId,
          parentSpanId: HEX_SPAN.test(parent) && !/^0+$/.test(parent) ? parent : null,
          name: textOf(s['name'], 'a span name'),
          startTimeUnixNano,
          endTimeUnixNano,
          attributes: attributes(s['attributes']),
          events: eventsOf(s['events'], i),
          status: { code: statusCodeOf(status['code'], `span ${i}'s status code`), message: textOf(status['message'], 'a status message') },
          resource,
          scope,
        });
      }
    }
  }
  return spans;
};


/**
 * The spans an export carries, counted before it is decoded (decoding builds an object for every span,
 * then the mapping another): in an OTLP/JSON export, the entries of every `resourceSpans[].scopeSpans[].spans`;
 * in protobuf bytes, the spans fields of every scope_spans of every resource_spans, read off the wire
 * without decoding them. Undefined when the bytes are no protobuf message: the decoder says why.
 */
export const spansInExport = (body: unknown): number | undefined => {
  if (Buffer.isBuffer(body)) return spansInProtobufExport(body);
  let count = 0;
  for (const rs of arr(isObj(body) ? body['resourceSpans'] : undefined))
    for (const ss of arr(isObj(rs) ? rs['scopeSpans'] : undefined)) count += arr(isObj(ss) ? ss['spans'] : undefined).length;
  return count;
};

const LENGTH_DELIMITED = 2;

const spansInProtobufExport = (bytes: Uint8Array): number | undefined => {
  const reader = protobuf.Reader.create(bytes);
  /** Calls `inner` with the end of each length-delimited field numbered `field` up to `end`, skipping the other fields. */
  const each = (end: number, field: number, inner: (end: number) => void): void => {
    while (reader.pos < end) {
      const tag = reader.uint32();
      if (tag >>> 3 !== field || (tag & 7) !== LENGTH_DELIMITED) {
        reader.skipType(tag & 7);
        continue;
      }
      const stop = reader.uint32() + reader.pos;
      if (stop > end) throw new RangeError('a field runs past its message');
      inner(stop);
      reader.pos = stop;
    }
  };
  let count = 0;
  try {
    // ExportTraceServiceRequest.resource_spans = 1, ResourceSpans.scope_spans = 2, ScopeSpans.spans = 2.
    each(bytes.length, 1, (resourceEnd) => each(resourceEnd, 2, (scopeEnd) => each(scopeEnd, 2, () => count++)));
    return count;
  } catch {
    return undefined;
  }
};
