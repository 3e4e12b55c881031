// A small static server for the demo page and its tests, on 127.0.0.1 only.
//   node web/serve.mjs SITE_DIR [--models DIR] [--ports 18200-18299] [--results DIR]
// Serves SITE_DIR at /, DIR at /models/ (model files stream with Content-Length). Picks the first free port of
// the range, starting at a random one (several servers may run at once), and prints "port N" on stdout.
// POST /result?name=NAME (the page's automated mode) writes the body to DIR/NAME.json (NAME: letters, digits, _-).
import { createServer } from 'node:http';
import { createReadStream, statSync, writeFileSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const site = resolve(args[0] || '.');
const models = opt('--models') ? resolve(opt('--models')) : null;
const [lo, hi] = opt('--ports', '18200-18299').split('-').map(Number);
const results = opt('--results') ? resolve(opt('--results')) : null;
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
                '.wasm': 'application/wasm', '.json': 'application/json' };

function inside(base, rel) {
  const p = normalize(join(base, rel));
  return p === base || p.startsWith(base + sep) ? p : null;
}

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (req.method === 'POST' && url.pathname === '/result') {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const name = url.searchParams.get('name') || 'result';
      if (results && /^[A-Za-z0-9_-]+$/.test(name)) writeFileSync(join(results, name + '.json'), body);
      res.end('ok');
    });
    return;
  }
  let path = decodeURIComponent(url.pathname);
  let file = models && path.startsWith('/models/') ? inside(models, path.slice(8)) : inside(site, path);
  if (file && path.endsWith('/')) file = join(file, 'index.html');
  let st = null;
  try { st = file && statSync(file); } catch (e) { st = null; }
  if (!st || !st.isFile()) { res.writeHead(404, { 'content-type': 'text/plain' }); res.end('not found'); return; }
  res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream', 'content-length': st.size,
                       'cache-control': 'no-store' });
  const s = createReadStream(file);
  s.pipe(res);
  res.on('close', () => s.destroy());  // the page may stop reading (a refused, too large model)
});

let port = lo + Math.floor(Math.random() * (hi - lo + 1));
let tries = 0;
server.on('error', (e) => {
  if (e.code !== 'EADDRINUSE' || ++tries > hi - lo) { console.error(`serve: ${e.message}`); process.exit(1); }
  port = port >= hi ? lo : port + 1;
  server.listen(port, '127.0.0.1');
});
server.on('listening', () => console.log(`port ${port}`));
server.listen(port, '127.0.0.1');
