import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { partialName, writeWhole } from './whole-file';

describe('writeWhole', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-whole-file-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names each write apart, even of one process: a random part follows host, pid namespace and pid', () => {
    const file = path.join(dir, 'export.jsonl');
    const names = new Set(Array.from({ length: 50 }, () => partialName(file)));
    expect(names.size).toBe(50);
    for (const name of names) expect(path.basename(name)).toMatch(new RegExp(`^\\.export\\.jsonl\\.[A-Za-z0-9_-]+\\.\\d+\\.${process.pid}\\.[0-9a-f]{8}\\.partial$`));
  });

  it('links what it wrote into place, and nothing else is left', async () => {
    const file = path.join(dir, 'export.jsonl');
    await expect(writeWhole(file, 'export', async (partial) => fs.writeFileSync(partial, 'whole\n'))).resolves.toBeUndefined();
    expect(fs.readdirSync(dir)).toEqual(['export.jsonl']);
    expect(fs.readFileSync(file, 'utf8')).toBe('whole\n');
  });

  it('never links a file that another put at its temporary name meanwhile, and leaves that file as it is', async () => {
    const file = path.join(dir, 'export.jsonl');
    let replacement = '';
    const written = writeWhole(file, 'export', async (partial) => {
      fs.writeFileSync(partial, 'ours, whole\n');
      // Another process removes it and writes its own there (what a clean-up that took it for
      // abandoned, followed by a write of the same name, would do).
      fs.rmSync(partial);
      fs.writeFileSync(partial, 'theirs, half');
      replacement = partial;
    });
    await expect(written).rejects.toThrow(
      `${replacement}, the export's temporary file, was replaced while it was written: the export was not written, and what is there now is left as it is`,
    );
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.readFileSync(replacement, 'utf8')).toBe('theirs, half');
  });

  it('says so when its temporary file was removed while it was written, and makes no file', async () => {
    const file = path.join(dir, 'backup.db');
    let removed = '';
    const written = writeWhole(file, 'backup', async (partial) => {
      fs.writeFileSync(partial, 'copy');
      fs.rmSync(partial);
      removed = partial;
    });
    await expect(written).rejects.toThrow(`${removed}, the backup's temporary file, was removed while it was written: the backup was not written`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
