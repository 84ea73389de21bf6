// Safe DOM building: every string becomes a text node or a property value, never markup.
// The dashboard shows server-controlled text everywhere (status messages, tool descriptions, results,
// elicitation prompts); nothing here ever parses a string as HTML.

/** Properties that may be set from `attrs`; anything else is refused (no `href`, `src`, `on*`, `innerHTML`). */
const ALLOWED = new Set([
  "className", "id", "type", "value", "checked", "disabled", "placeholder", "name", "title", "rows", "cols",
  "min", "max", "step", "required", "readOnly", "htmlFor", "spellcheck", "autocomplete", "selected", "hidden",
]);

/**
 * `el("div", {className: "x", dataset: {k: "v"}, on: {click: fn}}, "text", childNode, [more...])`.
 * Strings and numbers become text nodes; arrays are flattened; null/undefined/false are skipped.
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...unknown} children
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null) continue;
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
    else if (k === "aria") for (const [a, av] of Object.entries(v)) node.setAttribute(`aria-${a}`, String(av));
    else if (k === "role") node.setAttribute("role", String(v));
    else if (ALLOWED.has(k)) node[k] = v;
    else throw new Error(`el: attribute ${k} is not allowed`);
  }
  append(node, children);
  return node;
}

/** Appends children (strings as text nodes). */
export function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** Replaces all children of `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** JSON for display (text only), tolerant of cycles and BigInt. */
export function pretty(value) {
  const seen = new WeakSet();
  try {
    return JSON.stringify(
      value,
      (_k, v) => {
        if (typeof v === "bigint") return v.toString();
        if (v instanceof Map) return Object.fromEntries(v);
        if (v && typeof v === "object") {
          if (seen.has(v)) return "[circular]";
          seen.add(v);
        }
        return v;
      },
      2,
    ) ?? String(value);
  } catch {
    return String(value);
  }
}
