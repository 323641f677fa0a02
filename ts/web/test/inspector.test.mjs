// The message inspector in headless Chromium (scripts/test-browser.sh):
// every golden vector's tree and bytes, the hostile vectors' verdicts, a
// file, pasted hex, broken messages, wrong root types, the keyboard, byte
// highlighting. Every test also fails on any page error or console error.
import { after, afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  allCases,
  dumpBytes,
  loadExample,
  openInspector,
  parseJson,
  readTree,
  repo,
  sameTree,
  schemaId,
  selectSchema,
  startBrowser,
  startServer,
  status,
  waitRead,
  web,
} from "./harness.mjs";

/**
 * The error kind the library gives for each invalid hostile vector (the
 * vectors state only that it is invalid; the kinds are format.md §11's
 * rules as the Go and Rust validators report them).
 */
const hostileKinds = {
  absent_in_inline_at: "MalformedTable",
  absent_in_inline_over: "MalformedTable",
  absent_nested_over: "BudgetExceeded",
  absent_tables_at: "MalformedTable",
  absent_tables_over: "MalformedTable",
  block_end_past_the_message: "MalformedArray",
  block_misaligned: "MalformedArray",
  bunch_1025_entries: "DirectoryTooLarge",
  bunch_decoder_budget_at: "BudgetExceeded",
  bunch_decoder_budget_over: "BudgetExceeded",
  column_out_of_bounds: "MalformedArray",
  column_overruns: "MalformedArray",
  directory_1025_entries: "DirectoryTooLarge",
  empty_arrays_over: "BudgetExceeded",
  directory_misaligned: "MalformedArray",
  directory_offset_past_the_end: "MalformedArray",
  directory_past_the_end: "MalformedArray",
  directory_shared_wrong_size: "MalformedArray",
  directory_wrong_size: "MalformedArray",
  inline_root_too_long: "Truncated",
  short_table_over: "BudgetExceeded",
  soa_malformed_decoder_budget_at: "MalformedArray",
  soa_malformed_decoder_budget_over: "MalformedArray",
  soa_offset_zero: "MalformedArray",
  table_offset_zero: "MalformedTable",
  text_not_utf8: "InvalidText",
  union_inline_offset_zero: "InvalidUnion",
  union_inline_past_the_end: "InvalidUnion",
  union_table_offset_zero: "InvalidUnion",
  zero_width_1512: "BudgetExceeded",
  zero_width_1513: "BudgetExceeded",
  zero_width_max: "BudgetExceeded",
};

const cases = allCases();
let server;
let browser;
let page;

before(async () => {
  server = await startServer();
  browser = await startBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function fresh(query = "") {
  await page?.close();
  page = await openInspector(browser, server.url, query);
  return page;
}

afterEach(() => {
  // No test may leave an uncaught error or a console error behind.
  assert.deepEqual(page?.problems ?? [], []);
});

const seed = cases.find((c) => c.topic === "seed" && c.name === "account");

describe("examples", () => {
  test("the seed account: status, exact bytes, the values of format.md §14", async () => {
    const p = await fresh();
    assert.equal(await p.$eval("#schema", (s) => s.value), "seed/schema");
    await loadExample(p, "account");
    const st = await status(p);
    assert.equal(st.state, "valid", st.text);
    assert.match(st.text, /200 bytes, read as AccountData/);
    assert.deepEqual(await dumpBytes(p), seed.bytes);
    const tree = await readTree(p);
    assert.equal(sameTree(tree, seed.case.value), null);
    // Spot checks a reader sees on screen.
    const text = await p.$eval("#tree", (t) => t.textContent);
    assert.match(text, /Email \[\]char "example@email\.com"/);
    assert.match(text, /Profiles \[\]Profile #aos 3 elements/);
    assert.match(text, /Network SocialNetwork Instagram \(2\)/);
  });

  test("every golden vector: the tree is the case's value, the dump its bytes", async () => {
    const p = await fresh();
    let checked = 0;
    for (const c of cases.filter((c) => c.case.message === undefined)) {
      await selectSchema(p, schemaId(c));
      await loadExample(p, c.name);
      const st = await status(p);
      assert.equal(st.state, "valid", `${c.topic}/${c.name}: ${st.text}`);
      assert.deepEqual(await dumpBytes(p), c.bytes, `${c.topic}/${c.name}: bytes`);
      const diff = sameTree(await readTree(p), c.case.value);
      assert.equal(diff, null, `${c.topic}/${c.name}: ${diff}`);
      checked++;
    }
    // Every valid case of every topic (the hostile ones are below).
    assert.ok(checked >= 34, `only ${checked} cases`);
  });

  test("64-bit extremes are shown exactly", async () => {
    const p = await fresh();
    await selectSchema(p, "scalars/schema");
    const names = await p.$$eval("#example option", (o) => o.map((x) => x.value));
    const text = [];
    for (const name of names.filter((n) => n !== "")) {
      await loadExample(p, name);
      await readTree(p);
      text.push(await p.$eval("#tree", (t) => t.textContent));
    }
    const all = text.join("\n");
    for (const n of ["18446744073709551615", "-9223372036854775808", "9223372036854775807"]) assert.ok(all.includes(n), n);
  });

  test("unions, maps and nested arrays show their case, keys and counts", async () => {
    const p = await fresh();
    for (const [schema, needles] of [
      ["unions/schema", [/case \w+/]],
      ["maps/schema", [/map<\[\]char, /, /entries/]],
      ["nested/schema", [/\[\]\[\]f32/, /elements/]],
    ]) {
      await selectSchema(p, schema);
      const names = await p.$$eval("#example option", (o) => o.map((x) => x.value).filter((v) => v !== ""));
      let text = "";
      for (const name of names) {
        await loadExample(p, name);
        await readTree(p);
        text += await p.$eval("#tree", (t) => t.textContent);
      }
      for (const n of needles) assert.match(text, n, schema);
    }
  });
});

describe("hostile vectors", () => {
  test("invalid ones show the error kind and no tree, valid ones a tree", async () => {
    const p = await fresh();
    await selectSchema(p, "hostile/schema");
    const hostile = cases.filter((c) => c.topic === "hostile");
    assert.ok(hostile.length >= 30);
    let invalid = 0;
    for (const c of hostile) {
      await loadExample(p, c.name);
      const st = await status(p);
      assert.deepEqual(await dumpBytes(p), c.bytes, `${c.name}: bytes`);
      if (c.case.valid === true) {
        assert.equal(st.state, "valid", `${c.name}: ${st.text}`);
        const diff = sameTree(await readTree(p), c.case.value);
        assert.equal(diff, null, `${c.name}: ${diff}`);
      } else {
        invalid++;
        assert.equal(st.state, "invalid", `${c.name}: ${st.text}`);
        assert.equal(st.kind, hostileKinds[c.name], `${c.name}: ${st.text}`);
        // Where the vector names the kind, every validator reports it.
        if (c.case.error !== undefined) assert.equal(st.kind, c.case.error, `${c.name}: ${st.text}`);
        assert.equal(await p.$eval("#error-kind", (e) => e.textContent), st.kind);
        assert.match(await p.$eval("#error-message", (e) => e.textContent), /^karmem: /);
        assert.equal(await p.$("#tree > *"), null, `${c.name}: a tree for an invalid message`);
      }
    }
    assert.equal(invalid, Object.keys(hostileKinds).length);
  });
});

describe("loading", () => {
  test("a file through the file input (bytes, a .hex text file) and dropped", async () => {
    const p = await fresh();
    await waitRead(p, "account.bin,", () => p.setInputFiles("#file", { name: "account.bin", mimeType: "application/octet-stream", buffer: Buffer.from(seed.bytes) }));
    assert.equal((await status(p)).state, "valid");
    assert.deepEqual(await dumpBytes(p), seed.bytes);
    assert.equal(sameTree(await readTree(p), seed.case.value), null);
    await waitRead(p, "account.hex,", () => p.setInputFiles("#file", { name: "account.hex", mimeType: "text/plain", buffer: Buffer.from(seed.hexText) }));
    assert.equal((await status(p)).state, "valid");
    assert.deepEqual(await dumpBytes(p), seed.bytes);
    // Dropped on the Message box: a drop event carrying a file.
    const dt = await p.evaluateHandle((bytes) => {
      const t = new DataTransfer();
      t.items.add(new File([new Uint8Array(bytes)], "dropped.bin"));
      return t;
    }, seed.bytes);
    await waitRead(p, "dropped.bin,", () => p.dispatchEvent("#drop", "drop", { dataTransfer: dt }));
    assert.equal((await status(p)).state, "valid");
    assert.deepEqual(await dumpBytes(p), seed.bytes);
  });

  test("pasted hex, with or without offsets and spaces; bad hex is an error", async () => {
    const p = await fresh();
    for (const text of [seed.hexText, seed.bytes.map((b) => b.toString(16).padStart(2, "0")).join("")]) {
      await p.fill("#hex-input", text);
      await waitRead(p, "pasted hex,", () => p.click("#read-hex"));
      assert.equal((await status(p)).state, "valid");
      assert.deepEqual(await dumpBytes(p), seed.bytes);
      assert.equal(sameTree(await readTree(p), seed.case.value), null);
    }
    await p.fill("#hex-input", "4b 4d 0z");
    await waitRead(p, "pasted hex:", () => p.click("#read-hex"));
    assert.equal((await status(p)).state, "error");
  });

  test("a truncated message and random junk show an error, the bytes and no tree", async () => {
    const p = await fresh();
    // A deterministic junk generator (xorshift): no flaky inputs.
    let x = 0x9e3779b9;
    const junk = Array.from({ length: 203 }, () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x & 0xff;
    });
    const header = [0x4b, 0x4d, 2, 0, 0xd8, 0, 0, 0];
    for (const [name, bytes, kind] of [
      ["truncated", seed.bytes.slice(0, 100), "Truncated"],
      ["junk", junk, "BadMagic"],
      ["junk behind a header", [...header, ...junk.slice(0, 208)], null],
      ["empty", [], "Truncated"],
    ]) {
      await waitRead(p, `${name}.bin,`, () => p.setInputFiles("#file", { name: `${name}.bin`, mimeType: "application/octet-stream", buffer: Buffer.from(bytes) }));
      const st = await status(p);
      assert.equal(st.state, "invalid", `${name}: ${st.text}`);
      if (kind !== null) assert.equal(st.kind, kind, name);
      assert.deepEqual(await dumpBytes(p), bytes);
      assert.equal(await p.$("#tree > *"), null);
    }
  });

  test("damaged messages give a verdict, never an internal error", async () => {
    const p = await fresh();
    let x = 0x2545f491;
    const rnd = (n) => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) % n;
    };
    const seen = new Set();
    for (const c of cases.filter((c) => ["seed", "unions", "maps", "nested", "struct_arrays", "optional"].includes(c.topic) && !c.case.schema)) {
      await selectSchema(p, schemaId(c));
      for (let k = 0; k < 6; k++) {
        // Damage a few bytes past the header (a bad header is one verdict).
        const bytes = c.bytes.slice();
        for (let j = 0; j < 3; j++) bytes[8 + rnd(bytes.length - 8)] = rnd(256);
        const name = `${c.topic}-${c.name}-${k}.bin`;
        await waitRead(p, `${name},`, () => p.setInputFiles("#file", { name, mimeType: "application/octet-stream", buffer: Buffer.from(bytes) }));
        const st = await status(p);
        assert.ok(["valid", "invalid", "undecodable"].includes(st.state), `${name}: ${st.text}`);
        if (st.state === "valid") await readTree(p);
        seen.add(st.state);
      }
    }
    assert.ok(seen.has("valid") && seen.has("invalid"), [...seen].join());
  });

  test("a message read with every other root type does not crash", async () => {
    const p = await fresh();
    for (const [schema, example] of [
      ["seed/schema", "account"],
      ["unions/schema", null],
      ["maps/schema", null],
      ["nested/schema", null],
    ]) {
      await selectSchema(p, schema);
      const first = example ?? (await p.$$eval("#example option", (o) => o.map((x) => x.value).filter((v) => v !== "")))[0];
      await loadExample(p, first);
      const roots = await p.$$eval("#root option", (o) => o.map((x) => x.value));
      assert.ok(roots.length > 1);
      for (const r of roots) {
        await p.selectOption("#root", r);
        const st = await status(p);
        assert.ok(["valid", "invalid", "undecodable"].includes(st.state), `${schema} root ${r}: ${st.text}`);
        if (st.state === "valid") await readTree(p);
      }
    }
    // The seed account read as a ProfileData table: whatever it shows, the
    // page shows a verdict and the bytes.
    await selectSchema(p, "seed/schema");
    await loadExample(p, "account");
    await p.selectOption("#root", { label: "ProfileData (table)" });
    assert.match((await status(p)).text, /read as ProfileData/);
    assert.deepEqual(await dumpBytes(p), seed.bytes);
  });

  test("every schema loads, including the arena's, and lists its root types", async () => {
    const p = await fresh();
    const ids = await p.$$eval("#schema option", (o) => o.map((x) => x.value));
    assert.ok(ids.includes("arena/arena"));
    assert.ok(ids.length >= 20, `${ids.length} schemas`);
    for (const id of ids) {
      await selectSchema(p, id);
      assert.ok((await p.$$eval("#root option", (o) => o.length)) > 0, id);
    }
    await selectSchema(p, "arena/arena");
    assert.ok((await p.$$eval("#root option", (o) => o.map((x) => x.textContent))).includes("State (table)"));
    // Its example, encoded at build time from ts/web/examples/arena-state.json.
    await loadExample(p, "state");
    assert.equal((await status(p)).state, "valid");
    const want = parseJson(readFileSync(join(web, "examples", "arena-state.json"), "utf8"));
    assert.equal(sameTree(await readTree(p), want), null);
  });
});

describe("tree", () => {
  test("the keyboard opens, walks and closes the tree", async () => {
    const p = await fresh();
    await loadExample(p, "account");
    await p.click("#collapse-all");
    const rootHead = "#tree > details > summary";
    assert.equal(await p.$eval("#tree > details", (d) => d.open), false);
    await p.focus(rootHead);
    await p.keyboard.press("Enter");
    assert.equal(await p.$eval("#tree > details", (d) => d.open), true);
    // Down to ID, Email, Profiles; Right opens Profiles, Down to [0].
    for (let i = 0; i < 3; i++) await p.keyboard.press("ArrowDown");
    assert.equal(await p.evaluate(() => document.activeElement.closest(".node").dataset.label), "Profiles");
    await p.keyboard.press("ArrowRight");
    assert.equal(await p.$eval("[data-label=Profiles]", (d) => d.open), true);
    await p.keyboard.press("ArrowDown");
    assert.equal(await p.evaluate(() => document.activeElement.closest(".node").dataset.label), "[0]");
    await p.keyboard.press("ArrowRight");
    assert.equal(await p.$eval("[data-label=Profiles] .node[data-label='[0]']", (d) => d.open), true);
    // Left closes it, Left again goes to the parent, which Left closes.
    await p.keyboard.press("ArrowLeft");
    await p.keyboard.press("ArrowLeft");
    assert.equal(await p.evaluate(() => document.activeElement.closest(".node").dataset.label), "Profiles");
    await p.keyboard.press("ArrowLeft");
    assert.equal(await p.$eval("[data-label=Profiles]", (d) => d.open), false);
    // The tree has one tab stop: the row last focused.
    assert.equal(await p.$$eval("#tree [tabindex='0']", (e) => e.length), 1);
  });

  test("selecting a node highlights the bytes it came from", async () => {
    const p = await fresh();
    await loadExample(p, "account");
    await readTree(p);
    const lit = async () => p.$$eval("#dump-body .bytes span.lit", (s) => s.map((x) => Number(x.dataset.i)));
    const litAscii = async () => p.$$eval("#dump-body .ascii span.lit", (s) => s.map((x) => x.textContent).join(""));
    await p.click("#tree > details > .children > [data-label=Email] > .head");
    assert.equal(await litAscii(), "example@email.com");
    await p.click("#tree > details > .children > [data-label=ID] > .head");
    const id = await lit();
    assert.equal(id.length, 8);
    assert.deepEqual(
      id.map((i) => seed.bytes[i]),
      [42, 0, 0, 0, 0, 0, 0, 0],
    );
    await p.click("[data-label=Profiles] .node[data-label='[2]'] [data-label=Username] > .head");
    assert.equal(await litAscii(), "inkeliz");
    assert.match(await p.$eval("#selection", (s) => s.textContent), /^Bytes \d+–\d+ \(0x[0-9a-f]+, 7 bytes\)\.$/);
  });

  test("screenshot of the seed example", async () => {
    const p = await fresh();
    await p.setViewportSize({ width: 1360, height: 660 });
    await loadExample(p, "account");
    await p.click("[data-label=Profiles] .node[data-label='[0]'] > .head");
    await p.click("[data-label=Profiles] .node[data-label='[0]'] [data-label=Data] > .head");
    await p.click("[data-label=Profiles] .node[data-label='[0]'] [data-label=Username] > .head");
    const png = await p.screenshot({ fullPage: false });
    assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
    // The committed picture (docs/typescript.md) is rewritten on request only.
    if (process.env.INSPECTOR_SCREENSHOT === "1") {
      mkdirSync(join(repo, "docs", "img"), { recursive: true });
      writeFileSync(join(repo, "docs", "img", "inspector.png"), png);
    }
  });
});
