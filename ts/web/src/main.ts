// The Karmem message inspector (docs/typescript.md, "In the browser"): pick
// a schema and a root type, load a message (an example, a file, pasted
// hex), validate it with the library and show its value as a tree beside
// its bytes. Everything runs in the page; nothing is sent anywhere.
import * as karmem from "karmem";
import { DUMP_LIMIT, drawDump, parseHex } from "./hex.js";
import { type Range, type TreeNode, decodeTree } from "./tree.js";

/** catalog.json, written by build.mjs from the schemas and vectors. */
interface Catalog {
  readonly schemas: readonly SchemaEntry[];
}
interface SchemaEntry {
  readonly id: string;
  readonly label: string;
  /** The generated module, relative to the page. */
  readonly module: string;
  readonly examples: readonly Example[];
}
interface Example {
  readonly name: string;
  /** The `.hex` file, relative to the page. */
  readonly file: string;
  readonly root: string;
  readonly hostile: boolean;
  /** Hostile cases: whether validators accept it (the vector's `valid`). */
  readonly valid?: boolean;
}

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const ui = {
  schema: $<HTMLSelectElement>("schema"),
  root: $<HTMLSelectElement>("root"),
  example: $<HTMLSelectElement>("example"),
  file: $<HTMLInputElement>("file"),
  drop: $<HTMLElement>("drop"),
  hexInput: $<HTMLTextAreaElement>("hex-input"),
  readHex: $<HTMLButtonElement>("read-hex"),
  status: $<HTMLElement>("status"),
  tree: $<HTMLElement>("tree"),
  expandAll: $<HTMLButtonElement>("expand-all"),
  collapseAll: $<HTMLButtonElement>("collapse-all"),
  dump: $<HTMLTableSectionElement>("dump-body"),
  size: $<HTMLElement>("size"),
  selection: $<HTMLElement>("selection"),
};

const state: {
  catalog: Catalog | null;
  entry: SchemaEntry | null;
  layout: karmem.Schema | null;
  bytes: Uint8Array | null;
  source: string;
  cells: { hex: HTMLElement[]; ascii: HTMLElement[] };
  lit: HTMLElement[];
  /** Bumped by every schema switch, so that a late module load is dropped. */
  generation: number;
} = { catalog: null, entry: null, layout: null, bytes: null, source: "", cells: { hex: [], ascii: [] }, lit: [], generation: 0 };

/** Tree elements → their nodes (for highlighting and lazy children). */
const nodes = new WeakMap<Element, TreeNode>();

/** Nodes drawn by "Expand all" at most: a large message's tree is drawn
 * lazily as it is opened, and expanding everything stops here. */
const EXPAND_LIMIT = 20000;

// ---------------------------------------------------------------- status

type StatusState = "empty" | "valid" | "invalid" | "undecodable" | "error";

let serial = 0;

function setStatus(st: StatusState, text: string, err?: karmem.KarmemError): void {
  // Counts verdicts, so that a test can wait for the next one.
  ui.status.dataset["serial"] = String(++serial);
  ui.status.dataset["state"] = st;
  ui.status.replaceChildren();
  const verdict = document.createElement("strong");
  verdict.className = "verdict";
  verdict.textContent = { empty: "No message", valid: "Valid", invalid: "Invalid", undecodable: "Not decodable", error: "Error" }[st];
  ui.status.append(verdict, " ", text);
  if (err !== undefined) {
    ui.status.dataset["kind"] = err.kind;
    ui.status.dataset["offset"] = String(err.offset);
    const dl = document.createElement("dl");
    for (const [k, v, id] of [
      ["kind", err.kind, "error-kind"],
      ["offset", String(err.offset), "error-offset"],
      ["message", err.message, "error-message"],
    ] as const) {
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.id = id;
      dd.textContent = v;
      dl.append(dt, dd);
    }
    ui.status.append(dl);
  } else {
    delete ui.status.dataset["kind"];
    delete ui.status.dataset["offset"];
  }
}

// ---------------------------------------------------------------- schemas

async function start(): Promise<void> {
  try {
    const res = await fetch("catalog.json");
    if (!res.ok) throw new Error(`catalog.json: HTTP ${res.status}`);
    state.catalog = (await res.json()) as Catalog;
  } catch (e) {
    setStatus("error", `cannot load the schema list (${String(e)})`);
    return;
  }
  ui.schema.replaceChildren(...state.catalog.schemas.map((s) => new Option(s.label, s.id)));
  ui.schema.addEventListener("change", () => void selectSchema(ui.schema.value));
  ui.root.addEventListener("change", () => render());
  ui.example.addEventListener("change", () => void loadExample());
  ui.file.addEventListener("change", () => {
    const f = ui.file.files?.[0];
    if (f !== undefined) void loadFile(f);
  });
  ui.readHex.addEventListener("click", readPasted);
  ui.expandAll.addEventListener("click", () => expandAll());
  ui.collapseAll.addEventListener("click", () => ui.tree.querySelectorAll("details").forEach((d) => (d.open = false)));
  for (const ev of ["dragenter", "dragover"]) {
    ui.drop.addEventListener(ev, (e) => {
      e.preventDefault();
      ui.drop.classList.add("over");
    });
  }
  ui.drop.addEventListener("dragleave", () => ui.drop.classList.remove("over"));
  ui.drop.addEventListener("drop", (e) => {
    e.preventDefault();
    ui.drop.classList.remove("over");
    const f = (e as DragEvent).dataTransfer?.files[0];
    if (f !== undefined) void loadFile(f);
  });
  ui.tree.addEventListener("focusin", (e) => select(e.target as Element));
  ui.tree.addEventListener("keydown", treeKeys);
  const wanted = new URLSearchParams(location.search).get("schema");
  await selectSchema(state.catalog.schemas.some((s) => s.id === wanted) ? wanted! : state.catalog.schemas[0]!.id);
  document.body.dataset["ready"] = "true";
}

async function selectSchema(id: string): Promise<void> {
  const entry = state.catalog!.schemas.find((s) => s.id === id)!;
  const generation = ++state.generation;
  ui.schema.value = id;
  let layout: karmem.Schema;
  try {
    const m = (await import(new URL(entry.module, document.baseURI).href)) as { layout: karmem.Schema };
    layout = m.layout;
  } catch (e) {
    setStatus("error", `cannot load the generated module of ${entry.label} (${String(e)})`);
    return;
  }
  if (generation !== state.generation) return;
  state.entry = entry;
  state.layout = layout;
  ui.root.replaceChildren(...layout.structs.map((s, i) => new Option(`${s.name} (${s.table ? "table" : "inline"})`, String(i))));
  // The root the examples use, else the last table (schemas tend to
  // declare their root last).
  const usual = entry.examples[0]?.root ?? [...layout.structs].reverse().find((s) => s.table)?.name;
  ui.root.value = String(Math.max(0, layout.structs.findIndex((s) => s.name === usual)));
  const option = (x: Example): HTMLOptionElement => new Option(x.name, x.name);
  const group = (label: string, xs: readonly Example[]): HTMLOptGroupElement[] => {
    if (xs.length === 0) return [];
    const g = document.createElement("optgroup");
    g.label = label;
    g.append(...xs.map(option));
    return [g];
  };
  const ex = entry.examples;
  ui.example.replaceChildren(
    new Option(ex.length === 0 ? "(no examples for this schema)" : "— choose an example —", ""),
    ...group("golden vectors", ex.filter((x) => !x.hostile)),
    ...group("hostile, valid", ex.filter((x) => x.hostile && x.valid === true)),
    ...group("hostile, invalid", ex.filter((x) => x.hostile && x.valid !== true)),
  );
  ui.example.disabled = ex.length === 0;
  render();
  document.body.dataset["schema"] = entry.id;
}

// ---------------------------------------------------------------- loading

async function loadExample(): Promise<void> {
  const x = state.entry?.examples.find((e) => e.name === ui.example.value);
  if (x === undefined) return;
  try {
    const res = await fetch(x.file);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const bytes = parseHex(await res.text());
    if (typeof bytes === "string") throw new Error(bytes);
    const root = state.layout!.structs.findIndex((s) => s.name === x.root);
    if (root >= 0) ui.root.value = String(root);
    load(bytes, `example ${x.name}`);
  } catch (e) {
    setStatus("error", `cannot load example ${x.name} (${String(e)})`);
  }
}

async function loadFile(f: File): Promise<void> {
  try {
    // A `.hex` file is the vectors' text form; anything else is the bytes.
    if (/\.(hex|txt)$/i.test(f.name)) {
      const bytes = parseHex(await f.text());
      if (typeof bytes === "string") {
        setStatus("error", `${f.name}: ${bytes}`);
        return;
      }
      load(bytes, f.name);
    } else {
      load(new Uint8Array(await f.arrayBuffer()), f.name);
    }
  } catch (e) {
    setStatus("error", `cannot read ${f.name} (${String(e)})`);
  }
}

function readPasted(): void {
  const bytes = parseHex(ui.hexInput.value);
  if (typeof bytes === "string") {
    setStatus("error", `pasted hex: ${bytes}`);
    return;
  }
  load(bytes, "pasted hex");
}

function load(bytes: Uint8Array, source: string): void {
  // A copy in a buffer of its own starts at offset 0: 8-aligned (§1).
  state.bytes = bytes.byteOffset % 8 === 0 ? bytes : karmem.alignedCopy(bytes);
  state.source = source;
  render();
}

// ---------------------------------------------------------------- drawing

function render(): void {
  const bytes = state.bytes;
  const layout = state.layout;
  ui.tree.replaceChildren();
  ui.selection.textContent = "";
  state.lit = [];
  if (bytes === null || layout === null) {
    setStatus("empty", "Choose an example, open a file or paste hex.");
    ui.dump.replaceChildren();
    ui.size.textContent = "";
    return;
  }
  state.cells = drawDump(ui.dump, bytes);
  ui.size.textContent =
    bytes.length > DUMP_LIMIT ? `(${bytes.length} bytes, the first ${DUMP_LIMIT} shown)` : `(${bytes.length} bytes)`;
  const root = Number(ui.root.value);
  const rootName = layout.structs[root]!.name;
  const from = `${state.source}, ${bytes.length} bytes, read as ${rootName}`;
  try {
    karmem.validate(layout, root, bytes);
  } catch (e) {
    if (!(e instanceof karmem.KarmemError)) {
      setStatus("error", `${from}: ${String(e)}`);
      return;
    }
    setStatus("invalid", `${from}: ${e.kind} at offset ${e.offset}.`, e);
    // The error's offset in the dump: where to look.
    state.cells.hex[e.offset]?.classList.add("error-at");
    return;
  }
  let tree: TreeNode;
  try {
    tree = decodeTree(layout, root, bytes);
  } catch (e) {
    // Valid, but over the decoder's own limits (format.md §10): the
    // validator and the decoder charge the traversal budget differently.
    if (e instanceof karmem.KarmemError) setStatus("undecodable", `${from}: the decoder refuses it: ${e.kind}.`, e);
    else setStatus("error", `${from}: ${String(e)}`);
    return;
  }
  setStatus("valid", `${from}.`);
  const el = drawNode(tree, 0);
  ui.tree.append(el);
  openDefault(el, 0);
}

/** Opens the first levels of a fresh tree when they are small. */
function openDefault(el: Element, depth: number): void {
  const node = nodes.get(el);
  if (!(el instanceof HTMLDetailsElement) || node === undefined || depth > 1 || node.children.length > 64) return;
  openNode(el);
  for (const c of el.querySelector(":scope > .children")!.children) openDefault(c, depth + 1);
}

function drawNode(node: TreeNode, depth: number): HTMLElement {
  const leaf = node.children.length === 0;
  const el = document.createElement(leaf ? "div" : "details");
  el.className = `node ${node.kind}`;
  el.dataset["kind"] = node.kind;
  el.dataset["label"] = node.label;
  if (node.key !== undefined) el.dataset["key"] = node.key;
  if (node.variant !== undefined) el.dataset["variant"] = node.variant ?? "";
  if (node.value !== undefined) el.dataset["value"] = node.value;
  if (node.count !== undefined) el.dataset["count"] = String(node.count);
  const head = document.createElement(leaf ? "div" : "summary");
  head.className = "head";
  head.tabIndex = depth === 0 ? 0 : -1;
  const name = document.createElement("span");
  name.className = "name";
  name.textContent = node.label;
  const type = document.createElement("span");
  type.className = "type";
  type.textContent = node.type;
  head.append(name, " ", type);
  const extra: string[] = [];
  if (node.kind === "union") extra.push(node.variant === null ? "no value" : `case ${node.variant}`);
  else if (node.count !== undefined && node.value === undefined) extra.push(`${node.count} ${node.kind === "map" ? "entries" : "elements"}`);
  if (node.absent === true) extra.push("absent: default");
  if (node.value !== undefined && node.kind !== "union") {
    const v = document.createElement("span");
    v.className = "value";
    v.textContent = node.value;
    head.append(" ", v);
  }
  if (extra.length > 0) {
    const note = document.createElement("span");
    note.className = "note";
    note.textContent = extra.join(", ");
    head.append(" ", note);
  }
  el.append(head);
  if (!leaf) {
    const kids = document.createElement("div");
    kids.className = "children";
    kids.setAttribute("role", "group");
    el.append(kids);
    el.addEventListener("toggle", () => {
      if ((el as HTMLDetailsElement).open) fill(el, node);
    });
  }
  nodes.set(el, node);
  return el;
}

/** Draws a node's children the first time it is opened. */
function fill(el: HTMLElement, node: TreeNode): number {
  const kids = el.querySelector(":scope > .children")!;
  if (kids.childElementCount > 0) return 0;
  const depth = Number(el.dataset["depth"] ?? "0") + 1;
  for (const c of node.children) {
    const ce = drawNode(c, depth);
    ce.dataset["depth"] = String(depth);
    kids.append(ce);
  }
  return node.children.length;
}

function openNode(el: HTMLDetailsElement): number {
  const n = fill(el, nodes.get(el)!);
  el.open = true;
  return n;
}

function expandAll(): void {
  let drawn = 0;
  const stack: Element[] = [...ui.tree.children];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (!(el instanceof HTMLDetailsElement)) continue;
    drawn += openNode(el);
    if (drawn > EXPAND_LIMIT) {
      ui.selection.textContent = `Expanded the first ${EXPAND_LIMIT} nodes; open the rest one by one.`;
      return;
    }
    stack.push(...el.querySelector(":scope > .children")!.children);
  }
}

// ---------------------------------------------------------------- selection

function select(target: Element): void {
  const el = target.closest(".node");
  if (el === null) return;
  // One tab stop in the tree: the focused row (roving tabindex).
  ui.tree.querySelectorAll<HTMLElement>(".head[tabindex='0']").forEach((h) => (h.tabIndex = -1));
  (target as HTMLElement).tabIndex = 0;
  ui.tree.querySelectorAll(".selected").forEach((s) => s.classList.remove("selected"));
  el.classList.add("selected");
  highlight(nodes.get(el)?.range);
}

function highlight(range: Range | undefined): void {
  for (const c of state.lit) c.classList.remove("lit");
  state.lit = [];
  if (range === undefined) {
    ui.selection.textContent = "No single place in the message (absent, or spread over SoA columns).";
    return;
  }
  for (let i = range.start; i < Math.min(range.end, state.cells.hex.length); i++) {
    state.lit.push(state.cells.hex[i]!, state.cells.ascii[i]!);
  }
  for (const c of state.lit) c.classList.add("lit");
  state.lit[0]?.scrollIntoView({ block: "nearest" });
  const n = range.end - range.start;
  ui.selection.textContent = `Bytes ${range.start}–${range.end - 1} (0x${range.start.toString(16)}, ${n} byte${n === 1 ? "" : "s"}).`;
}

/** Arrow keys move between visible rows and open or close them (the
 * WAI-ARIA tree pattern); Enter and Space toggle, as on any summary. */
function treeKeys(e: KeyboardEvent): void {
  const head = (e.target as Element).closest(".head") as HTMLElement | null;
  if (head === null) return;
  const el = head.parentElement!;
  const rows = [...ui.tree.querySelectorAll<HTMLElement>(".head")].filter((h) => h.offsetParent !== null);
  const i = rows.indexOf(head);
  const go = (h: HTMLElement | undefined): void => {
    if (h === undefined) return;
    e.preventDefault();
    h.focus();
  };
  switch (e.key) {
    case "ArrowDown":
      go(rows[i + 1]);
      break;
    case "ArrowUp":
      go(rows[i - 1]);
      break;
    case "Home":
      go(rows[0]);
      break;
    case "End":
      go(rows[rows.length - 1]);
      break;
    case "ArrowRight":
      if (el instanceof HTMLDetailsElement) {
        e.preventDefault();
        if (!el.open) openNode(el);
        else go(rows[i + 1]);
      }
      break;
    case "ArrowLeft":
      e.preventDefault();
      if (el instanceof HTMLDetailsElement && el.open) el.open = false;
      else go(el.parentElement?.closest(".node")?.querySelector<HTMLElement>(":scope > .head") ?? undefined);
      break;
  }
}

void start();
