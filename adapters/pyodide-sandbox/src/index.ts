// The CodeSandbox port on Pyodide: uploaded Python scorers run in worker threads, closed off from the host.
export * from './pyodide-sandbox';
