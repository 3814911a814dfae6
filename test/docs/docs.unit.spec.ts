// The documentation holds together: the README stays a front page, every page of docs/ is in its index, and
// every link between them (and to the repository's files) leads somewhere, down to the heading it names.
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const pages = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
/**
 * Markdown without its code blocks, where a bracket is code, not a link: fenced blocks, whose fences open
 * and close a line (three backticks inside a line are inline code, as evaluation.md's ```` ```json ````).
 */
const prose = (text: string) => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
const anchorsOf = (file: string) => new Set([...prose(read(file)).matchAll(/^#{1,6} (.*)$/gm)].map((m) => anchor(m[1]!)));

describe('the documentation', () => {
  it('has a README that stays a front page (under 250 lines)', () => {
    expect(read('README.md').split('\n').length).toBeLessThan(250);
  });

  it('lists every page of docs/ in docs/README.md, and links the index from the README', () => {
    const index = read('docs/README.md');
    for (const page of pages.filter((p) => p.startsWith('docs/') && p !== 'docs/README.md')) expect([page, index.includes(`](${path.basename(page)})`)]).toEqual([page, true]);
    expect(read('README.md')).toContain('](docs/README.md)');
  });

  it('links only to files that exist, and to headings that exist in them', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const [, target] of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // a URL, not a file of the repository
        const [file, hash] = target!.split('#') as [string, string | undefined];
        const resolved = file === '' ? page : path.normalize(path.join(path.dirname(page), file));
        if (!fs.existsSync(path.join(ROOT, resolved))) broken.push(`${page}: ${target} (no such file)`);
        else if (hash !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(hash)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('starts the server with the same Node options wherever it is started: pnpm start, the Dockerfile, the benches, operations.md', () => {
    const benches = /SERVER_NODE_ARGS = \[([^\]]*)\]/.exec(read('test/bench/bench-server.mjs'))![1]!.split(',').map((a) => a.trim().replace(/^'|'$/g, ''));
    expect(benches.length).toBeGreaterThan(0);
    const start = JSON.parse(read('package.json')).scripts.start as string;
    expect(start).toContain(`node ${benches.join(' ')} apps/server/dist/main.js`);
    expect(read('Dockerfile')).toContain(`CMD ["node", ${benches.map((a) => `"${a}"`).join(', ')}, "dist/main.js"]`);
    expect(read('docs/operations.md')).toContain(`node ${benches.join(' ')} apps/server/dist/main.js`);
  });
});
