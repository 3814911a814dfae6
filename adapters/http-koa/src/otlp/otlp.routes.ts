// OTLP/HTTP trace ingestion: the origin's path (/otel/traces) and the standard one (/v1/traces),
// protobuf or JSON, gzip accepted. The project and log stream come from the `project` and
// `logstream` headers, as the origin's SDKs send them.
import { Name, OtlpExportResponse, describeCodec } from '@tracelight/api-schema';
import type { OtelSpan } from '@tracelight/domain';
import { TracingUseCases } from '@tracelight/use-cases';
import * as t from 'io-ts';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';
import { OtlpDecodeFailure, decodeOtlpProtobuf, spansInExport, spansOfRequest } from './otlp.decoder';

/** A Buffer is a protobuf export; an object is an OTLP/JSON export. Either becomes spans, or a 422. */
const OtlpExport = describeCodec(new t.Type<OtelSpan[], unknown, unknown>(
  'ExportTraceServiceRequest',
  (u): u is OtelSpan[] => Array.isArray(u),
  (u, c) => {
    try {
      return t.success(Buffer.isBuffer(u) ? decodeOtlpProtobuf(u) : spansOfRequest(u));
    } catch (e) {
      if (!(e instanceof OtlpDecodeFailure)) throw e;
      return t.failure(Buffer.isBuffer(u) ? null : u, c, JSON.stringify({ type: 'value_error', msg: `Value error, ${e.message}` }));
    }
  },
  t.identity,
), {
  description: 'An OTLP ExportTraceServiceRequest (opentelemetry-proto trace/v1): protobuf bytes, or its OTLP/JSON form',
  type: ['object', 'string'],
});

/**
 * Where an export goes: `project` names an existing project (its name or id); `logstream` names a log
 * stream created on first use, so it follows the rules of a name given to POST …/log_streams (1 to
 * 255 characters, no control characters).
 */
const OtlpHeaders = t.type({ project: t.string, logstream: Name }, 'OtlpHeaders');

@injectable()
export class OtlpRoutes implements RouteGroup {
  constructor(@inject(TracingUseCases) private readonly tracing: TracingUseCases) {}

  routes(): ReadonlyArray<Route> {
    const tracing = this.tracing;
    const otlp = (path: string) =>
      route({
        method: 'post',
        path,
        summary: 'OTLP/HTTP trace export (protobuf or JSON, gzip accepted); headers `project` and `logstream` name where it goes',
        auth: 'required',
        bodyKind: 'bytes',
        errors: 'otlp',
        body: OtlpExport,
        response: OtlpExportResponse,
        headers: OtlpHeaders,
        // Counted before decoding: an export of too many spans is refused without building them.
        admits: (body) => {
          const spans = spansInExport(body);
          return spans === undefined ? undefined : tracing.refusesExportOf(spans);
        },
        handle: ({ principal, header, body }) => tracing.ingestOtel(principal, header('project')!, header('logstream')!, body),
        // Full success; a protobuf request gets it as an empty ExportTraceServiceResponse (otlp-answers.middleware.ts).
        present: () => ({}),
        // A 10,000-span export costs about a second of decoding and mapping: not on the request thread.
        offload: true,
      });
    return [otlp('/otel/traces'), otlp('/v1/traces')];
  }
}
