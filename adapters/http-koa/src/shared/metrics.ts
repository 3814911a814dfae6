// Prometheus metrics: request counts and latency by route and status, plus the process defaults.
import { ScoringMetrics } from '@tracelight/scoring-workers';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppContext } from './context';

/**
 * What an in-process structure that grows with clients or data holds: its entries and, where it is also
 * bounded by size, that size (in the unit of its bound: characters of JSON or SQL, bytes of bodies).
 */
export interface Held {
  readonly entries: number;
  readonly size?: number;
}

/** One registry per process: HTTP requests, storage operations, retention, bounded structures, dropped log lines, process defaults. */
/** One port call's duration, as `tracelight_storage_operation_duration_seconds` records it. */
export interface StorageTiming {
  readonly repository: string;
  readonly operation: string;
  readonly outcome: string;
  readonly seconds: number;
}

export class HttpMetrics {
  readonly registry = new Registry();
  /** The structures /metrics reports on, by name; read when scraped. */
  private readonly watched = new Map<string, () => Held>();
  private readonly requests = new Counter({
    name: 'tracelight_http_requests_total',
    help: 'HTTP requests, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'tracelight_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    // Up to the request timeout's default (30 s): a slow search (its budget is 20 s) lands in a bucket, not only in +Inf.
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  /** Requests whose body an offload worker parsed and handled, by route template. */
  readonly offloaded = new Counter({
    name: 'tracelight_http_offloaded_requests_total',
    help: 'Requests handed to an offload worker (large ingest bodies), by route',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  /** Requests Node refused before they reached the application (no route, no request line in the log of requests), by status. */
  readonly refused = new Counter({
    name: 'tracelight_http_refused_requests_total',
    help: 'Requests refused before they were read: 400 unparseable, 405 CONNECT, 408 too slow, 431 headers too large',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  /** Connections closed unanswered because the server had TRACELIGHT_MAX_CONNECTIONS open. */
  readonly dropped = new Counter({
    name: 'tracelight_http_dropped_connections_total',
    help: 'Connections closed at once, unanswered, because the most the server keeps open (TRACELIGHT_MAX_CONNECTIONS) were open',
    registers: [this.registry],
  });

  /** Records removed by the purge of deleted projects. */
  readonly purgedRecords = new Counter({
    name: 'tracelight_purged_records_total',
    help: 'Traces, spans and sessions removed by the purge of deleted projects (in the background, after each DELETE of a project)',
    registers: [this.registry],
  });

  /** Records removed by the retention sweep (TRACELIGHT_RETENTION_DAYS). */
  readonly retentionRemoved = new Counter({
    name: 'tracelight_retention_removed_records_total',
    help: 'Traces, spans and sessions removed by the retention sweep because they were older than TRACELIGHT_RETENTION_DAYS',
    registers: [this.registry],
  });

  /**
   * Log lines dropped because more than TRACELIGHT_LOG_BUFFER waited to be written, by stream. Lines, not
   * bytes: each is one request or event missing from the log, and the log's own notice of the gap counts them too.
   */
  readonly droppedLogLines = new Counter({
    name: 'tracelight_log_dropped_lines_total',
    help: 'Log lines dropped, by stream (stdout, stderr), because whatever reads the server\'s output stopped reading, or writing it failed (a full disk), and more than TRACELIGHT_LOG_BUFFER waited to be written',
    labelNames: ['stream'] as const,
    registers: [this.registry],
  });

  private readonly storage = new Histogram({
    name: 'tracelight_storage_operation_duration_seconds',
    help: 'Repository operations, by repository, operation and outcome (ok or the domain error tag)',
    labelNames: ['repository', 'operation', 'outcome'] as const,
    // Up to a search's default budget (20 s) and past it.
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  /**
   * Scoring's metrics (judge calls and tokens, jobs finished, the code sandbox, the queue's depth), defined
   * once for the server and the evaluator app: this process's scoring workers and sandbox report here.
   */
  readonly scoring = new ScoringMetrics(this.registry);

  /** Reports `structure` in `tracelight_held_entries` (and `tracelight_held_size`), read at each scrape. */
  watch(structure: string, read: () => Held): void {
    this.watched.set(structure, read);
  }

  constructor() {
    // Under their standard names (process_cpu_seconds_total, nodejs_heap_size_used_bytes, …), which
    // dashboards and alerts for any process or Node service look for; the job label tells the service.
    collectDefaultMetrics({ register: this.registry });
    // Read at each scrape from the structures being watched, so that their bounds can be seen holding.
    const watched = this.watched;
    new Gauge({
      name: 'tracelight_held_entries',
      help: 'Entries held by each in-process structure that grows with clients, credentials or data (caches, rate-limit buckets, queues), by structure',
      labelNames: ['structure'] as const,
      registers: [this.registry],
      collect(this: Gauge<'structure'>) {
        for (const [structure, read] of watched) this.set({ structure }, read().entries);
      },
    });
    new Gauge({
      name: 'tracelight_held_size',
      help: 'What the structures also bounded by size hold, in the unit of their bound (characters of JSON or SQL, bytes of bodies), by structure',
      labelNames: ['structure'] as const,
      registers: [this.registry],
      collect(this: Gauge<'structure'>) {
        for (const [structure, read] of watched) {
          const size = read().size;
          if (size !== undefined) this.set({ structure }, size);
        }
      },
    });
  }

  /** Where this registry's storage timings go instead of into it: an offload worker's go to the request thread's /metrics. */
  private storageSink: ((timing: StorageTiming) => void) | undefined;

  /** Storage timings are handed to `sink` from now on, not kept here (a registry no one scrapes). */
  forwardStorageTo(sink: (timing: StorageTiming) => void): void {
    this.storageSink = sink;
  }

  /** A storage timing taken elsewhere (an offload worker's), into this registry. */
  observeStorage({ repository, operation, outcome, seconds }: StorageTiming): void {
    this.storage.labels(repository, operation, outcome).observe(seconds);
  }

  /**
   * Wraps a repository so every port call is timed. Port methods return lazy TaskEithers: the timer
   * runs when the task runs, and stops when its Either arrives. Each method is wrapped once, on first
   * use, and each (operation, outcome) has its histogram child cached: a port call costs a map lookup,
   * not a closure and a label object per call.
   */
  instrument<R extends object>(repository: string, target: R): R {
    const storage = this.storage;
    const children = new Map<string, { observe(seconds: number): void }>();
    const observe = (operation: string, outcome: string, seconds: number) => {
      if (this.storageSink) return this.storageSink({ repository, operation, outcome, seconds });
      const key = `${operation} ${outcome}`;
      let child = children.get(key);
      if (child === undefined) {
        child = storage.labels(repository, operation, outcome);
        children.set(key, child);
      }
      child.observe(seconds);
    };
    const wrapped = new Map<string, unknown>();
    const wrap = (operation: string, method: (...a: unknown[]) => unknown) =>
      function (this: unknown, ...args: unknown[]) {
        const task: unknown = method.apply(target, args);
        if (typeof task !== 'function') return task;
        return async () => {
          const started = process.hrtime.bigint();
          const result = (await (task as () => Promise<{ _tag: string; left?: { _tag?: string } }>)()) ?? { _tag: 'Right' };
          observe(operation, result._tag === 'Left' ? (result.left?._tag ?? 'error') : 'ok', Number(process.hrtime.bigint() - started) / 1e9);
          return result;
        };
      };
    return new Proxy(target, {
      get(obj, prop, receiver) {
        const value: unknown = Reflect.get(obj, prop, receiver);
        if (typeof value !== 'function' || typeof prop !== 'string' || prop === 'constructor') return value;
        let fn = wrapped.get(prop);
        if (fn === undefined) {
          fn = wrap(prop, value as (...a: unknown[]) => unknown);
          wrapped.set(prop, fn);
        }
        return fn;
      },
    });
  }

  /**
   * The counter and histogram children of each (method, route, status) seen so far: a request then
   * costs one map lookup instead of building, validating and merging label objects. Bounded like the
   * labels themselves (route templates, not raw paths).
   */
  private readonly children = new Map<string, { readonly inc: () => void; readonly observe: (seconds: number) => void }>();

  private child(method: string, route: string, status: number) {
    const key = `${method} ${status} ${route}`;
    let child = this.children.get(key);
    if (child === undefined) {
      const counter = this.requests.labels(method, route, String(status));
      const histogram = this.latency.labels(method, route, String(status));
      child = { inc: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      this.children.set(key, child);
    }
    return child;
  }

  /**
   * One finished request, labelled by the route template (bounded cardinality), never by the raw path.
   * The access log calls it with the status the client was sent and the duration it measured, so a
   * request is timed once.
   */
  record(ctx: AppContext, status: number, seconds: number): void {
    const child = this.child(ctx.method, (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched', status);
    child.inc();
    child.observe(seconds);
  }
}
