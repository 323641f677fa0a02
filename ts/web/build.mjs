// Assembles the inspector in dist/ after tsc has compiled it to dist/js:
// the page, its stylesheet, the golden vectors' `.hex` files and
// catalog.json, the list of built-in schemas (generated into gen/ by
// scripts/build-web.sh) with their examples. No dependencies, no bundler.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const vectors = join(repo, "testdata", "vectors");
const gen = join(here, "gen");
const dist = join(here, "dist");

mkdirSync(dist, { recursive: true });
for (const f of ["index.html", "style.css"]) copyFileSync(join(here, f), join(dist, f));

/** Cases of a vector topic: name, root, and for hostile ones the verdict. */
function examples(topic) {
  const dir = join(vectors, topic);
  if (!existsSync(dir)) return [];
  mkdirSync(join(dist, "vectors", topic), { recursive: true });
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const name = f.slice(0, -".json".length);
      const c = JSON.parse(readFileSync(join(dir, f), "utf8"));
      copyFileSync(join(dir, `${name}.hex`), join(dist, "vectors", topic, `${name}.hex`));
      const hostile = c.message !== undefined;
      return { name, file: `vectors/${topic}/${name}.hex`, root: c.root, hostile, ...(hostile ? { valid: c.valid === true } : {}) };
    });
}

/** Examples that are not vectors (build-web.sh encodes them into
 * gen/examples): written out in the vectors' hex form. */
function extraExamples(group) {
  if (group !== "arena") return [];
  const bytes = readFileSync(join(gen, "examples", "arena-state.bin"));
  const lines = [];
  for (let i = 0; i < bytes.length; i += 16) {
    const row = [...bytes.subarray(i, i + 16)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
    lines.push(`${i.toString(16).padStart(4, "0")}: ${row}`);
  }
  mkdirSync(join(dist, "vectors", "arena"), { recursive: true });
  writeFileSync(join(dist, "vectors", "arena", "state.hex"), lines.join("\n") + "\n");
  return [{ name: "state", file: "vectors/arena/state.hex", root: "State", hostile: false }];
}

const labels = {
  "seed/schema": "seed: the seed README's AccountData (format.md §14)",
  "arena/arena": "arena: the arena demo's game state (examples/arena/arena.km)",
};
const first = ["seed/schema", "arena/arena"];
const schemas = [];
for (const group of readdirSync(gen).sort()) {
  if (group === "examples") continue;
  for (const base of readdirSync(join(gen, group)).sort()) {
    const id = `${group}/${base}`;
    const mod = readdirSync(join(gen, group, base)).find((f) => f.endsWith(".ts"));
    if (mod === undefined) throw new Error(`no generated module in gen/${id}`);
    const all = [...examples(group), ...extraExamples(group)];
    schemas.push({
      id,
      label: labels[id] ?? `vectors/${group}: ${base}.km`,
      module: `js/web/gen/${id}/${mod.replace(/\.ts$/, ".js")}`,
      examples: all,
    });
  }
}
schemas.sort((a, b) => {
  const [x, y] = [first.indexOf(a.id), first.indexOf(b.id)];
  if (x >= 0 || y >= 0) return (x < 0 ? first.length : x) - (y < 0 ? first.length : y);
  return a.id < b.id ? -1 : 1;
});
writeFileSync(join(dist, "catalog.json"), JSON.stringify({ schemas }, null, 1) + "\n");
console.log(`build.mjs: ${schemas.length} schemas, ${schemas.reduce((n, s) => n + s.examples.length, 0)} examples in ${dist}`);
