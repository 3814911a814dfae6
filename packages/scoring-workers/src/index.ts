// The scoring workers: their loop, how a process puts its scoring together, and their Prometheus metrics.
export * from './scoring-worker-pool';
export * from './compose';
export * from './scoring-metrics';
