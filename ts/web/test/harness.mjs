// What the browser tests share: the server (serve.mjs on a free port), a
// headless Debian Chromium driven by playwright-core, pages that record
// every page error and console error, the vectors, and a reading of the
// tree the page drew. Not a DOM mock: the page runs in the real browser.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const web = join(here, "..");
export const repo = join(web, "..", "..");
export const vectors = join(repo, "testdata", "vectors");

/** Debian's package `chromium` (scripts/test-browser.sh installs it). */
const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Starts serve.mjs on a free port; resolves to { url, stop }. */
export async function startServer() {
  const child = spawn(process.execPath, [join(web, "serve.mjs"), "0"], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8");
  for await (const chunk of child.stdout) {
    out += chunk;
    const m = /serving (http:\/\/\S+)/.exec(out);
    if (m) {
      return {
        url: m[1],
        stop: async () => {
          child.kill();
          await once(child, "exit").catch(() => {});
        },
      };
    }
  }
  throw new Error(`serve.mjs exited without serving: ${out}`);
}

export async function startBrowser() {
  // As root (containers, CI) Chromium's sandbox cannot start: --no-sandbox.
  const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  return chromium.launch({ executablePath, headless: true, args });
}

/**
 * Opens the inspector in a new page and waits until it has loaded its
 * schema list. `page.problems` collects uncaught errors and console errors;
 * every test ends by asserting it is empty.
 */
export async function openInspector(browser, url, query = "") {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.problems = [];
  page.on("pageerror", (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") page.problems.push(`console.error: ${m.text()}`);
  });
  await page.goto(url + query);
  await page.waitForSelector("body[data-ready=true]");
  return page;
}

/** The vectors' hex text as bytes (testdata/vectors/README.md). */
export function hexBytes(text) {
  const out = [];
  for (const line of text.split("\n")) {
    const i = line.indexOf(":");
    for (const h of (i >= 0 ? line.slice(i + 1) : line).trim().split(/\s+/)) if (h !== "") out.push(parseInt(h, 16));
  }
  return out;
}

/** Every case of every topic: { topic, name, case, bytes, hexText }. */
export function allCases() {
  const out = [];
  for (const topic of readdirSync(vectors).sort()) {
    if (topic.endsWith(".md")) continue;
    for (const f of readdirSync(join(vectors, topic)).sort()) {
      if (!f.endsWith(".json")) continue;
      const name = f.slice(0, -5);
      const hexText = readFileSync(join(vectors, topic, `${name}.hex`), "utf8");
      out.push({ topic, name, case: parseJson(readFileSync(join(vectors, topic, f), "utf8")), bytes: hexBytes(hexText), hexText });
    }
  }
  return out;
}

/** Schema id in the page's catalog for a case (`topic/schema`). */
export function schemaId(c) {
  return `${c.topic}/${(c.case.schema ?? "schema.km").replace(/\.km$/, "")}`;
}

/** Switches the page to a schema and waits for its examples. */
export async function selectSchema(page, id) {
  await page.selectOption("#schema", id);
  // The switch is async (a module import); the page marks its end.
  await page.waitForFunction((id) => document.body.dataset.schema === id, id);
}

/** Loads an example by name and waits until the page has read it. */
export async function loadExample(page, name) {
  await waitRead(page, `example ${name},`, () => page.selectOption("#example", name));
}

/** Does `action`, then waits for the page's next verdict, which must name
 * `source` (the status line counts its verdicts in data-serial). */
export async function waitRead(page, source, action) {
  const before = await page.$eval("#status", (s) => Number(s.dataset.serial ?? 0));
  await action();
  await page.waitForFunction(
    ([s, n]) => {
      const st = document.getElementById("status");
      return Number(st.dataset.serial ?? 0) > n && st.textContent.includes(s);
    },
    [source, before],
  );
}

export async function status(page) {
  return page.$eval("#status", (s) => ({ state: s.dataset.state, kind: s.dataset.kind ?? null, offset: s.dataset.offset ?? null, text: s.textContent }));
}

/** The bytes the hex dump shows. */
export async function dumpBytes(page) {
  return page.$$eval("#dump-body .bytes span", (spans) => spans.map((s) => parseInt(s.textContent, 16)));
}

/** Opens the whole tree ("Expand all") and reads it back from the DOM. */
export async function readTree(page) {
  await page.click("#expand-all");
  return page.evaluate(() => {
    const read = (el) => {
      const kids = el.querySelector(":scope > .children");
      return {
        kind: el.dataset.kind,
        label: el.dataset.label,
        key: el.dataset.key,
        variant: el.dataset.variant,
        value: el.dataset.value,
        count: el.dataset.count,
        children: kids ? [...kids.children].map(read) : [],
      };
    };
    const root = document.querySelector("#tree > .node");
    return root ? read(root) : null;
  });
}

// ---------------------------------------------------------------- JSON

/** A JSON number, kept as written: 64-bit integers must stay exact. */
export class JNum {
  constructor(raw) {
    this.raw = raw;
  }
}

/** JSON with numbers as `JNum` (the vectors' 64-bit values exceed 2^53). */
export function parseJson(text) {
  let i = 0;
  const ws = () => {
    while (/\s/.test(text[i] ?? "")) i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === "{" || c === "[") {
      const obj = c === "{";
      const out = obj ? {} : [];
      i++;
      ws();
      if (text[i] === (obj ? "}" : "]")) {
        i++;
        return out;
      }
      for (;;) {
        if (obj) {
          const k = value();
          ws();
          i++; // :
          out[k] = value();
        } else out.push(value());
        ws();
        if (text[i++] !== ",") return out;
      }
    }
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const s = JSON.parse(text.slice(i, j + 1));
      i = j + 1;
      return s;
    }
    for (const [w, v] of [["true", true], ["false", false], ["null", null]]) {
      if (text.startsWith(w, i)) {
        i += w.length;
        return v;
      }
    }
    const m = /^-?[0-9.eE+-]+/.exec(text.slice(i));
    if (!m) throw new Error(`bad JSON at ${i}`);
    i += m[0].length;
    return new JNum(m[0]);
  };
  return value();
}

/**
 * Compares a tree read from the page with a vector's JSON value (its
 * conventions: README.md there). Returns null, or where and how they differ.
 */
export function sameTree(node, j, path = "$") {
  const bad = (why) => `${path}: ${why} (page: ${JSON.stringify({ ...node, children: node.children.length })})`;
  switch (node.kind) {
    case "union": {
      if (j === null) return node.variant === "" ? null : bad("expected no value");
      const [k] = Object.keys(j);
      if (node.variant !== k) return bad(`expected case ${k}`);
      return sameTree(node.children[0], j[k], `${path}.${k}`);
    }
    case "struct": {
      if (j === null) return bad("expected null");
      // A tuple is a JSON array, in field order.
      const keys = Array.isArray(j) ? j.map((_, i) => i) : Object.keys(j);
      if (keys.length !== node.children.length) return bad(`${keys.length} fields expected, ${node.children.length} shown`);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        const child = Array.isArray(j) ? node.children[i] : node.children.find((c) => c.label === k);
        if (child === undefined) return bad(`no field ${k}`);
        const d = sameTree(child, j[k], `${path}.${k}`);
        if (d) return d;
      }
      return null;
    }
    case "map": {
      const keys = Object.keys(j ?? {});
      if (keys.length !== node.children.length) return bad(`${keys.length} entries expected`);
      for (const k of keys) {
        const child = node.children.find((c) => c.key === k);
        if (child === undefined) return bad(`no key ${JSON.stringify(k)}`);
        const d = sameTree(child, j[k], `${path}[${JSON.stringify(k)}]`);
        if (d) return d;
      }
      return null;
    }
    case "array": {
      const items = j ?? [];
      if (!Array.isArray(items)) return bad("expected an array");
      if (items.length !== node.children.length || String(items.length) !== node.count) return bad(`${items.length} elements expected`);
      for (let i = 0; i < items.length; i++) {
        const d = sameTree(node.children[i], items[i], `${path}[${i}]`);
        if (d) return d;
      }
      return null;
    }
    default:
      return sameLeaf(node.value, j) ? null : bad(`expected ${j instanceof JNum ? j.raw : JSON.stringify(j)}`);
  }
}

function sameLeaf(shown, j) {
  if (shown === undefined) return false;
  if (j === null) return shown === "null";
  if (typeof j === "boolean") return shown === String(j);
  if (typeof j === "string") {
    // Text is shown JSON-quoted; an enum as "Name (number)"; a non-finite
    // float as the vectors spell it.
    if (shown.startsWith('"')) return JSON.parse(shown) === j;
    return shown === j || shown.startsWith(`${j} (`);
  }
  if (j instanceof JNum) {
    const n = shown.replace(/^\w+ \((.*)\)$/, "$1");
    if (/[.eE]/.test(j.raw)) return Object.is(Number(n), Number(j.raw));
    return /^-?\d+$/.test(n) && BigInt(n) === BigInt(j.raw);
  }
  return false;
}
