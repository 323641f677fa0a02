// Serves the built inspector (dist/, `make web`) on localhost, with no
// dependencies: `node serve.mjs [port] [root]`, or PORT in the environment
// (default 8080; 0 picks a free port). Prints "serving http://…/" once it
// listens, which the browser tests wait for. Only files under the root are
// served: a path that resolves outside it is refused.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
const root = resolve(process.argv[3] ?? join(here, "dist"));

const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".hex": "text/plain; charset=utf-8",
  ".km": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".bin": "application/octet-stream",
};

/** The file a request path names, or null when it is outside the root. */
export function resolvePath(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath.split("?")[0].split("#")[0]);
  } catch {
    return null;
  }
  if (path.includes("\0")) return null;
  const file = resolve(root, "." + (path.endsWith("/") ? path + "index.html" : path));
  return file === root || file.startsWith(root + sep) ? file : null;
}

const server = createServer(async (req, res) => {
  const send = (code, text) => {
    res.writeHead(code, { "content-type": "text/plain; charset=utf-8" });
    res.end(text);
  };
  if (req.method !== "GET" && req.method !== "HEAD") return send(405, "method not allowed\n");
  const file = resolvePath(root, req.url ?? "/");
  if (file === null) return send(403, "forbidden\n");
  try {
    if (!(await stat(file)).isFile()) return send(404, "not found\n");
    const body = await readFile(file);
    res.writeHead(200, {
      "content-type": types[extname(file).toLowerCase()] ?? "application/octet-stream",
      "content-length": body.length,
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  } catch {
    send(404, "not found\n");
  }
});

server.listen(port, "127.0.0.1", () => {
  const addr = server.address();
  console.log(`serving http://127.0.0.1:${addr.port}/ from ${root}`);
});
