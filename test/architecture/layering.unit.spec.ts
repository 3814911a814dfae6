// The dependency rule, checked mechanically: every import in every source file against the allowed edges.
// (tsc project references already stop a package from resolving what its package.json does not list;
// this also catches a forbidden edge added to a package.json.)
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Package folder → the imports it may use (workspace packages and npm packages; node: built-ins are free). */
const ALLOWED: Record<string, ReadonlyArray<string>> = {
  'domain/model': ['fp-ts', 'io-ts'],
  ports: ['@tracelight/domain', 'fp-ts'],
  'domain/use-cases': ['@tracelight/domain', '@tracelight/ports', 'fp-ts'],
  'packages/api-schema': ['@tracelight/domain', 'fp-ts', 'io-ts'],
  // Read by both apps: it must not pull an adapter (or its driver) into either.
  'packages/config': ['fp-ts'],
  // Used by an adapter and an app: it imports nothing.
  'packages/worker-calls': [],
  // Run by the server and the evaluator app: the use cases and ports, never an adapter; prom-client for
  // the scoring metrics both processes report, defined once.
  'packages/scoring-workers': ['@tracelight/domain', '@tracelight/ports', '@tracelight/use-cases', 'fp-ts', 'prom-client'],
  // The console speaks to the API through the typed client alone, and renders with Preact.
  'apps/console': ['@tracelight/client', 'preact'],
};

/** No app imports another app, and nothing else imports an app; no adapter may import another adapter. */
const ADAPTERS = ['@tracelight/sqlite', '@tracelight/mongodb', '@tracelight/http-koa', '@tracelight/credentials', '@tracelight/openai-gateway'];
// The server ships the console's built files (it serves them) but imports none of its code.
const APPS = ['@tracelight/server', '@tracelight/cli', '@tracelight/evaluator', '@tracelight/console'];

const sourceFiles = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sourceFiles(p);
        return /\.tsx?$/.test(e.name) && !e.name.endsWith('.spec.ts') ? [p] : [];
      })
    : [];

const importsOf = (file: string): string[] => {
  const text = fs.readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/g)];
  return found.map((m) => m[1] ?? m[2] ?? m[3]!).filter((s) => !s.startsWith('.') && !s.startsWith('node:'));
};

const packageOf = (specifier: string): string =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;

describe('layering', () => {
  it('the console makes no HTTP call of its own: every call goes through the typed client', () => {
    const calls = sourceFiles(path.join(ROOT, 'apps/console/src')).flatMap((f) =>
      /\bfetch\(|XMLHttpRequest|EventSource|WebSocket|sendBeacon/.test(fs.readFileSync(f, 'utf8')) ? [path.relative(ROOT, f)] : [],
    );
    expect(calls).toEqual([]);
  });

  it.each(Object.entries(ALLOWED))('%s imports only what it may', (dir, allowed) => {
    const files = sourceFiles(path.join(ROOT, dir, 'src'));
    expect(files.length).toBeGreaterThan(0);
    const violations = files.flatMap((f) =>
      importsOf(f)
        .map(packageOf)
        .filter((p) => !allowed.includes(p))
        .map((p) => `${path.relative(ROOT, f)} imports ${p}`),
    );
    expect(violations).toEqual([]);
  });

  it('no adapter imports another adapter, no app another app, and nothing else an app', () => {
    const adapterDirs = fs.readdirSync(path.join(ROOT, 'adapters'));
    const violations = [
      ...adapterDirs.flatMap((a) =>
        sourceFiles(path.join(ROOT, 'adapters', a, 'src')).flatMap((f) =>
          importsOf(f)
            .map(packageOf)
            .filter((p) => (ADAPTERS.includes(p) && p !== `@tracelight/${a}`) || APPS.includes(p))
            .map((p) => `${path.relative(ROOT, f)} imports ${p}`),
        ),
      ),
      ...fs.readdirSync(path.join(ROOT, 'apps')).flatMap((a) =>
        sourceFiles(path.join(ROOT, 'apps', a, 'src')).flatMap((f) =>
          importsOf(f)
            .map(packageOf)
            .filter((p) => APPS.includes(p) && p !== JSON.parse(fs.readFileSync(path.join(ROOT, 'apps', a, 'package.json'), 'utf8')).name)
            .map((p) => `${path.relative(ROOT, f)} imports ${p}`),
        ),
      ),
      ...['packages', 'domain', 'ports'].flatMap((top) =>
        sourceFiles(path.join(ROOT, top)).flatMap((f) =>
          importsOf(f)
            .map(packageOf)
            .filter((p) => APPS.includes(p))
            .map((p) => `${path.relative(ROOT, f)} imports ${p}`),
        ),
      ),
    ];
    expect(violations).toEqual([]);
  });

  it('the domain uses no decorators, inversify or reflect-metadata', () => {
    const files = [...sourceFiles(path.join(ROOT, 'domain')), ...sourceFiles(path.join(ROOT, 'ports'))];
    const offenders = files.filter((f) => /@injectable|@inject\(|reflect-metadata|from 'inversify'/.test(fs.readFileSync(f, 'utf8')));
    expect(offenders.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  // The use cases remember scorers once read (readThrough in domain/use-cases) and full pages of scorer
  // versions for good: sound only while those records never change. Projects and runs are remembered
  // too, for a bounded time, as they can be deleted (a project with its runs) but never changed. A port
  // that gains an update, or a delete where none is allowed, fails here, as a reminder to revisit the
  // cache of its records.
  it.each([
    // A project is deleted whole: retired at once (gone for every reader), then purged.
    ['ports/src/projects-runs/project.repository.ts', 'ProjectRepository', /^(insert|find|list|retire$|retired$|purgeStep$)/],
    ['ports/src/projects-runs/run.repository.ts', 'RunRepository', /^(insert|find|list)/],
    ['ports/src/scorers/scorer.repository.ts', 'ScorerRepository', /^(insert|find|list)/],
    ['ports/src/scorers/scorer-version.repository.ts', 'ScorerVersionRepository', /^(insert|append|find|list)/],
  ])('%s can only insert and read, or delete whole (its records are cached as unchanging)', (file, name, allowed) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const body = new RegExp(`interface ${name} \\{([\\s\\S]*?)\\n\\}`).exec(text)?.[1] ?? '';
    const methods = [...body.matchAll(/^\s*(\w+)\(/gm)].map((m) => m[1]!);
    expect(methods.length).toBeGreaterThan(1);
    expect(methods.filter((m) => !allowed.test(m))).toEqual([]);
  });
});
