// The code blocks of the project's Markdown: every ```ts, ```tsx and ```js block of the READMEs and
// docs/*.md, with where it is and its info-string flags (```ts run: the block runs as it stands),
// and the ```text output block that may follow a runnable one (what it prints).
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

/** The Markdown files whose code the doc tests check, relative to the repository root. */
export async function docFiles(root) {
  const docs = (await readdir(join(root, "docs"))).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
  const examples = [];
  for (const d of await readdir(join(root, "examples"), { withFileTypes: true })) {
    if (d.isDirectory()) examples.push(`examples/${d.name}/README.md`);
  }
  return ["README.md", "src/js/npm/README.md", ...docs.sort(), ...examples.sort()];
}

const LANGS = new Set(["ts", "tsx", "js"]);

/** The checked blocks of one Markdown text: `{ line, lang, flags, code }` (line: the fence's, 1-based;
 *  lang `"output"` for a ```text output block). */
export function codeBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split("\n");
  let open = null;
  for (const [i, text] of lines.entries()) {
    const fence = /^(\s*)(`{3,})(.*)$/.exec(text);
    if (open) {
      if (fence && fence[2].length >= open.ticks && fence[3].trim() === "") {
        if (open.block) blocks.push({ ...open.block, code: open.body.join("\n") + "\n" });
        open = null;
      } else {
        open.body.push(text.slice(Math.min(open.indent, text.length - text.trimStart().length)));
      }
    } else if (fence) {
      const [lang = "", ...flags] = fence[3].trim().split(/\s+/);
      const output = lang === "text" && flags.includes("output");
      const block = LANGS.has(lang) || output ? { line: i + 1, lang: output ? "output" : lang, flags } : null;
      open = { ticks: fence[2].length, indent: fence[1].length, body: [], block };
    }
  }
  return blocks;
}

/** Every checked block of the project's docs, each with its file (relative to `root`) and, when the
 *  next block is a ```text output block, its lines as `output`. */
export async function projectSnippets(root) {
  const out = [];
  for (const file of await docFiles(root)) {
    const text = await readFile(join(root, file), "utf8").catch(() => null);
    if (text === null) continue;
    const blocks = codeBlocks(text);
    for (const [i, b] of blocks.entries()) {
      if (b.lang === "output") continue;
      const next = blocks[i + 1];
      const output = next?.lang === "output" ? next.code.split("\n").filter((l) => l.trim() !== "") : null;
      out.push({ file: relative(root, join(root, file)), ...b, output });
    }
  }
  return out;
}
