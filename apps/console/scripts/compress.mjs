// Writes a brotli (.br) and a gzip (.gz) companion beside each text file of the build, at the highest
// levels: compressed once here, sent as they are by the server, whichever the browser accepts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';

const dist = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'dist');
const TEXT = /\.(html|js|css|svg|json|txt)$/;
let files = 0;
const walk = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file);
    else if (TEXT.test(entry.name)) {
      const bytes = fs.readFileSync(file);
      fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
      fs.writeFileSync(`${file}.gz`, zlib.gzipSync(bytes, { level: 9 }));
      files += 1;
    }
  }
};
walk(dist);
console.log(`compressed ${files} files of ${dist} (.br and .gz beside each)`);
