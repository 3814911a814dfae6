// OTLP/HTTP trace ingestion: the origin's path (/otel/traces), the standard one (/v1/traces) and
// Langfuse's (/api/public/otel/v1/traces), protobuf or JSON, gzip accepted. Where an export goes: the
// project named by the `project` header (as the origin's SDKs send it), else by the exporter's own
// configuration (Langfuse's public key, Phoenix's resource attribute openinference.project.name),
// created on first use; the log stream named by the `logstream` header, else `default`.
import { Name, OtlpExportResponse, describeCodec } from '@tracelight/api-schema';
import { type DomainError, type OtelSpan, OTEL_PROJECT_ATTRIBUTE, invalid, otelProjectName } from '@tracelight/domain';
import { type OtelDestination, TracingUseCases } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import * as t from 'io-ts';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';
import { OtlpDecodeFailure, spansInExport, spansOfRequest } from './otlp.decoder';
import { decodeOtlpProtobuf } from './otlp-protobuf.decoder';

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
 * Where an export goes, when the request says: `project` names an existing project (its name or id);
 * `logstream` names a log stream created on first use, so it follows the rules of a name given to
 * POST …/log_streams (1 to 255 characters, no control characters). Both may be left out (see otlpDestination).
 */
const OtlpHeaders = t.partial({ project: t.string, logstream: Name }, 'OtlpHeaders');

/** The log stream of an export whose request names none. */
export const DEFAULT_OTLP_LOG_STREAM = 'default';

/** A project name an exporter gives, when it is one a project may have (POST /projects' rule). */
const projectNamed = (name: string, where: string): E.Either<DomainError, string> =>
  E.isRight(Name.decode(name)) ? E.right(name) : E.left(invalid([], `${where} is no project name (1 to 255 characters, no control characters)`, name));

/**
 * Where an export goes. The project: the `project` header's (which must exist); else the one the
 * exporter's configuration names, created on first use: Langfuse's public key (the name of its Basic
 * pair), else the spans' resource attribute openinference.project.name (Phoenix's projectName). The
 * log stream: the `logstream` header's, else DEFAULT_OTLP_LOG_STREAM.
 */
export const otlpDestination = (
  headers: { readonly project: string | undefined; readonly logstream: string | undefined },
  publicKey: string | undefined,
  spans: ReadonlyArray<OtelSpan>,
): E.Either<DomainError, OtelDestination> => {
  const logStream = headers.logstream ?? DEFAULT_OTLP_LOG_STREAM;
  if (headers.project !== undefined) return E.right({ project: headers.project, createsProject: false, logStream });
  const created = (project: string): OtelDestination => ({ project, createsProject: true, logStream });
  if (publicKey !== undefined) return pipe(projectNamed(publicKey, 'the public key (the name of the Basic pair)'), E.map(created));
  return pipe(
    otelProjectName(spans),
    E.flatMap((name) =>
      name === undefined
        ? E.left(invalid([], `no project named: send the \`project\` header, or the resource attribute ${OTEL_PROJECT_ATTRIBUTE} (Phoenix's projectName)`))
        : projectNamed(name, `the resource attribute ${OTEL_PROJECT_ATTRIBUTE}`),
    ),
    E.map(created),
  );
};

@injectable()
export class OtlpRoutes implements RouteGroup {
  constructor(@inject(TracingUseCases) private readonly tracing: TracingUseCases) {}

  routes(): ReadonlyArray<Route> {
    const tracing = this.tracing;
    const otlp = (path: string, summary: string, langfuse = false) =>
      route({
        method: 'post',
        path,
        summary,
        auth: 'required',
        ...(langfuse ? { basicApiKey: true as const } : {}),
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
        handle: ({ principal, header, body, basicName }) =>
          pipe(
            TE.fromEither(otlpDestination({ project: header('project'), logstream: header('logstream') }, langfuse ? basicName : undefined, body)),
            TE.flatMap((destination) => tracing.ingestOtel(principal, destination, body)),
          ),
        // Full success; a protobuf request gets it as an empty ExportTraceServiceResponse (otlp-answers.middleware.ts).
        present: () => ({}),
        // A 10,000-span export costs about a second of decoding and mapping: not on the request thread.
        offload: true,
      });
    const standard = 'OTLP/HTTP trace export (protobuf or JSON, gzip accepted); headers `project` and `logstream` name where it goes (else the resource attribute openinference.project.name, and the log stream `default`)';
    return [
      otlp('/otel/traces', standard),
      otlp('/v1/traces', standard),
      otlp(
        '/api/public/otel/v1/traces',
        "Langfuse's OTLP/HTTP trace export path: HTTP Basic `<project>:<API key>` (Langfuse's publicKey:secretKey), the project created on first use; the log stream `default` unless the `logstream` header names one",
        true,
      ),
    ];
  }
}
