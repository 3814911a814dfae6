export * from './pending-calls';
