// What Prometheus is told of scoring: judge calls and tokens, jobs finished, the code sandbox and the queue's
// depth. One definition, registered by the server's /metrics and the evaluator app's alike.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ScoringObservers } from './compose';

/** The scoring queue's depth, in the whole database (ScoringQueue.depth); undefined when it could not be read. */
export type QueueDepthReader = () => Promise<{ readonly pending: number; readonly computing: number } | undefined>;

/** What a code sandbox reports (the Pyodide adapter's observer, by shape: this package imports no adapter). */
export interface SandboxReports {
  started(ms: number): void;
  replaced(reason: 'timeout' | 'memory' | 'crash'): void;
}

export class ScoringMetrics {
  /** Judge calls, by how they ended (`ok`, `retryable`, `permanent`, `refused`, `unparseable`), and how long they took. */
  readonly judgeCalls: Histogram<'outcome'>;
  /** Tokens judges used, by kind (prompt, completion). */
  readonly judgeTokens: Counter<'kind'>;
  /** Scoring jobs that ended, by state (success, error, failed, not_applicable, not_computed) or were put back (retry). */
  readonly scoringJobs: Counter<'state'>;
  readonly sandboxStarts: Histogram;
  readonly sandboxReplaced: Counter<'reason'>;
  /** Where the queue's depth is read at each scrape. */
  private queueDepth: QueueDepthReader | undefined;

  constructor(registry: Registry) {
    this.judgeCalls = new Histogram({
      name: 'tracelight_judge_call_duration_seconds',
      help: 'Calls to judge models through users\' gateways (one per ChainPoll request), by outcome: ok, retryable (timeout, network, 408, 429, 5xx, an unreadable answer), permanent (another 4xx), refused (the gateway\'s address is one judges may not call), unparseable (an answer that is not the JSON asked for)',
      labelNames: ['outcome'] as const,
      // Judges answer in seconds; the call timeout's default is 60 s.
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
      registers: [registry],
    });
    this.judgeTokens = new Counter({
      name: 'tracelight_judge_tokens_total',
      help: 'Tokens used by judge calls, as the provider counted them, by kind: prompt or completion',
      labelNames: ['kind'] as const,
      registers: [registry],
    });
    this.scoringJobs = new Counter({
      name: 'tracelight_scoring_jobs_finished_total',
      help: 'Scoring jobs this process finished, by what became of them: success, error, failed, not_applicable, not_computed, or retry (put back to wait out a backoff)',
      labelNames: ['state'] as const,
      registers: [registry],
    });
    this.sandboxStarts = new Histogram({
      name: 'tracelight_sandbox_start_seconds',
      help: 'Time a code scorer interpreter (Pyodide in a worker thread) took to start',
      buckets: [0.5, 1, 2, 4, 8, 16, 32],
      registers: [registry],
    });
    this.sandboxReplaced = new Counter({
      name: 'tracelight_sandbox_replaced_total',
      help: 'Code scorer interpreters ended while running a call, by why: timeout (past the time limit), memory (V8 heap limit), crash (the interpreter broke)',
      labelNames: ['reason'] as const,
      registers: [registry],
    });
    const metrics = this;
    new Gauge({
      name: 'tracelight_scoring_queue_jobs',
      help: 'Scoring jobs of every run waiting to be scored (pending, a backoff included) and being scored (computing), in the whole database',
      labelNames: ['state'] as const,
      registers: [registry],
      async collect(this: Gauge<'state'>) {
        const depth = await metrics.queueDepth?.().catch(() => undefined);
        if (depth === undefined) return;
        this.set({ state: 'pending' }, depth.pending);
        this.set({ state: 'computing' }, depth.computing);
      },
    });
  }

  /** Reports the scoring queue's depth in `tracelight_scoring_queue_jobs`, read at each scrape. */
  watchQueue(read: QueueDepthReader): void {
    this.queueDepth = read;
  }

  /** What composeScoring takes to count judge calls, tokens and finished jobs here. */
  observers(): ScoringObservers {
    return {
      judge: {
        called: (seconds, outcome) => this.judgeCalls.labels(outcome).observe(seconds),
        used: (tokens) => {
          this.judgeTokens.labels('prompt').inc(tokens.prompt);
          this.judgeTokens.labels('completion').inc(tokens.completion);
        },
      },
      finished: (report) => this.scoringJobs.labels(report.outcome.state).inc(),
    };
  }

  /** What a code sandbox's observer calls: its interpreters' starts and replacements, counted here. */
  sandbox(): SandboxReports {
    return {
      started: (ms) => this.sandboxStarts.observe(ms / 1000),
      replaced: (reason) => this.sandboxReplaced.inc({ reason }),
    };
  }
}
