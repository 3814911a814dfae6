// The scoring workers: their loop, and how a process puts its scoring together.
export * from './scoring-worker-pool';
export * from './compose';
