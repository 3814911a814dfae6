// Builds the console into dist/: hashed assets under dist/assets, index.html naming them, all served
// by the server at /console. No dev-only plugins: JSX is compiled for Preact by Vite's own transformer.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  resolve: {
    // The typed client from its sources: its imports of the API's codecs are types only, erased here.
    alias: { '@tracelight/client': fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url)) },
  },
  // The production JSX runtime: the development one would ship each element's source file, line and column.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact', development: false } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // An inline polyfill script would need the page's Content-Security-Policy to allow inline scripts.
    modulePreload: { polyfill: false },
    // The server sends the precomputed .br/.gz companions (scripts/compress.mjs); a size report here too.
    reportCompressedSize: true,
  },
});
