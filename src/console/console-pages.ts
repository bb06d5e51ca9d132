/**
 * The console's pages (issue 37): one HTML page and its bundle (built by scripts/build-console.mjs
 * into dist/console/), served under CONSOLE_BASE_PATH with a strict Content-Security-Policy: scripts,
 * styles, images and connections from this origin only, no inline script or style, no framing, no
 * form posting elsewhere. Nothing secret is in a page: the session is an HttpOnly cookie, and data
 * comes from the APIs. The bundle's files are read once at start-up.
 */
import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response } from 'express';
import { PROJECT_ROOT } from '../project-root';

export const CONSOLE_BUILD_DIR = path.join(PROJECT_ROOT, 'dist', 'console');

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), publickey-credentials-create=(self), publickey-credentials-get=(self)',
};

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

interface Asset {
  body: Buffer;
  type: string;
}

function readAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!fs.existsSync(dir)) return assets;
  for (const name of fs.readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (type) assets.set(name, { body: fs.readFileSync(path.join(dir, name)), type });
  }
  return assets;
}

/** The router of the console's pages; the console's API is mounted beside it under `/api`. */
export function consolePages(backOfficeBasePath: string, dir = CONSOLE_BUILD_DIR): express.Router {
  const assets = readAssets(dir);
  // The page learns where the back office is from a meta element (no inline script under the CSP).
  const page = assets.get('index.html');
  if (page) page.body = Buffer.from(page.body.toString('utf8').replace('%BACK_OFFICE_BASE_PATH%', backOfficeBasePath));
  const router = express.Router();
  const send = (res: Response, asset: Asset | undefined, cache: string) => {
    if (!asset) {
      res.status(503).set(HEADERS).type('text/plain').send('The console is not built: run `make build` (scripts/build-console.mjs).');
      return;
    }
    res
      .status(200)
      .set({ ...HEADERS, 'Cache-Control': cache, 'Content-Type': `${asset.type}; charset=utf-8` })
      .send(asset.body);
  };
  router.get('/', (req: Request, res: Response) => {
    // Relative asset URLs need the trailing slash.
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, `${req.baseUrl}/`);
    send(res, assets.get('index.html'), 'no-cache');
  });
  router.get('/assets/:name', (req: Request, res: Response, next) => {
    const asset = assets.get(String(req.params['name']));
    if (!asset || asset.type === 'text/html') return next();
    // Names are fixed (app.js, app.css): a browser revalidates them on each first load.
    send(res, asset, 'no-cache');
  });
  return router;
}
