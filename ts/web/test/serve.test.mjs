// serve.mjs on its own: MIME types, and no path outside its root.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { startServer } from "./harness.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(async () => server.stop());

/** A GET with the path sent as written (fetch would normalise `..`). */
function get(path) {
  const u = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode, type: res.headers["content-type"], body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("the page and its parts with their MIME types", async () => {
  for (const [path, type] of [
    ["/", "text/html"],
    ["/index.html", "text/html"],
    ["/style.css", "text/css"],
    ["/js/web/src/main.js", "text/javascript"],
    ["/js/src/index.js", "text/javascript"],
    ["/catalog.json", "application/json"],
    ["/vectors/seed/account.hex", "text/plain"],
  ]) {
    const r = await get(path);
    assert.equal(r.status, 200, path);
    assert.ok(r.type.startsWith(type), `${path}: ${r.type}`);
  }
  assert.equal((await get("/no-such-file.js")).status, 404);
});

test("paths outside the root are refused", async () => {
  for (const path of ["/../package.json", "/..%2fpackage.json", "/%2e%2e/%2e%2e/Makefile", "/js/../../serve.mjs", "/%00", "/%zz"]) {
    const r = await get(path);
    assert.ok(r.status === 403 || r.status === 404, `${path}: ${r.status}`);
    assert.ok(!r.body.includes("karmem-inspector") && !r.body.includes("createServer"), path);
  }
  assert.equal((await get("/../package.json")).status, 403);
});
