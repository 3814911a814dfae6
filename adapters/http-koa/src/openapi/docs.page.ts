// The API reference at /docs: Swagger UI rendered from /openapi.json, its assets served from the
// swagger-ui-dist package (offline: no CDN).
import * as fs from 'node:fs';
import * as path from 'node:path';

const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

const assetDir = (): string => path.dirname(require.resolve('swagger-ui-dist/package.json'));

export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Tracelight API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

export const DOCS_INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  // Left unset, Swagger UI shows a badge from its online validator, an image fetched from another host
  // with this server's document URL in it, whenever the page is opened by a name other than localhost.
  validatorUrl: null,
});
`;

/** An asset's bytes and type, or undefined for anything not on the list (no path traversal). */
export const docsAsset = (name: string): { body: Buffer; type: string } | undefined => {
  // Own keys only: `constructor` or `toString` are not assets.
  const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  return type ? { body: fs.readFileSync(path.join(assetDir(), name)), type } : undefined;
};
