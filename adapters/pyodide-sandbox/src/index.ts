// The CodeSandbox port on Pyodide: uploaded Python scorers run in processes of their own, closed off from the host.
export * from './pyodide-sandbox';
export { type SandboxProcessCommand, interpreterCommand, pyodideDir, sandboxProcessArguments } from './sandbox-process';
