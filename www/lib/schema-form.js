// Renders an elicitation `requestedSchema` (a flat object of primitive properties, as MCP allows) as form
// fields, and reads the typed answer back. All labels and descriptions are server text → text nodes only.
import { el } from "./dom.js";

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** Options of an enum-like property: [{value, label}] or null. */
function enumOptions(prop) {
  if (Array.isArray(prop.enum)) {
    const names = Array.isArray(prop.enumNames) ? prop.enumNames : [];
    return prop.enum.map((v, i) => ({ value: v, label: String(names[i] ?? v) }));
  }
  const alts = Array.isArray(prop.oneOf) ? prop.oneOf : Array.isArray(prop.anyOf) ? prop.anyOf : null;
  if (alts && alts.every((a) => isObj(a) && "const" in a)) {
    return alts.map((a) => ({ value: a.const, label: String(a.title ?? a.const) }));
  }
  return null;
}

/**
 * Builds the fields for `schema` into a fragment; returns {node, read} where `read()` returns
 * `{ok: true, content}` or `{ok: false, error}`.
 */
export function schemaFields(schema, idPrefix) {
  const props = isObj(schema) && isObj(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required.map(String) : []);
  const readers = [];
  const rows = [];
  let n = 0;
  for (const [key, rawProp] of Object.entries(props)) {
    const prop = isObj(rawProp) ? rawProp : {};
    const id = `${idPrefix}-f${n++}`;
    const label = String(prop.title ?? key);
    const req = required.has(key);
    const help = typeof prop.description === "string" ? el("small", { className: "help" }, prop.description) : null;
    const options = enumOptions(prop);
    const itemsOptions = prop.type === "array" && isObj(prop.items) ? enumOptions(prop.items) : null;
    let input;
    let read;
    if (prop.type === "boolean") {
      input = el("input", { type: "checkbox", id, name: key, checked: prop.default === true });
      read = () => ({ value: input.checked });
    } else if (options) {
      input = el(
        "select",
        { id, name: key, required: req },
        req ? null : el("option", { value: "" }, "—"),
        options.map((o, i) => el("option", { value: String(i), selected: o.value === prop.default }, o.label)),
      );
      read = () => (input.value === "" ? { value: undefined } : { value: options[Number(input.value)]?.value });
    } else if (itemsOptions) {
      const boxes = itemsOptions.map((o, i) => {
        const cb = el("input", { type: "checkbox", id: `${id}-${i}`, name: key, checked: Array.isArray(prop.default) && prop.default.includes(o.value) });
        return { cb, o, node: el("label", { className: "inline", htmlFor: `${id}-${i}` }, cb, " ", o.label) };
      });
      input = el("div", { className: "multi", id }, boxes.map((b) => b.node));
      read = () => ({ value: boxes.filter((b) => b.cb.checked).map((b) => b.o.value) });
    } else if (prop.type === "number" || prop.type === "integer") {
      input = el("input", {
        type: "number", id, name: key, required: req,
        step: prop.type === "integer" ? "1" : "any",
        min: typeof prop.minimum === "number" ? String(prop.minimum) : undefined,
        max: typeof prop.maximum === "number" ? String(prop.maximum) : undefined,
        value: typeof prop.default === "number" ? String(prop.default) : "",
      });
      read = () => {
        if (input.value === "") return { value: undefined };
        const v = Number(input.value);
        if (!Number.isFinite(v) || (prop.type === "integer" && !Number.isInteger(v))) return { error: `${label}: not a valid ${prop.type}` };
        return { value: v };
      };
    } else {
      const type = prop.format === "email" ? "email" : prop.format === "uri" ? "url" : prop.format === "date" ? "date" : "text";
      input = el("input", { type, id, name: key, required: req, value: typeof prop.default === "string" ? prop.default : "" });
      read = () => (input.value === "" ? { value: undefined } : { value: input.value });
    }
    rows.push(el("div", { className: "field" }, el("label", { htmlFor: id }, label, req ? " *" : ""), input, help));
    readers.push({ key, req, label, read });
  }
  const node = el("div", { className: "fields" }, rows.length ? rows : el("p", { className: "muted" }, "(the server asks for no fields)"));
  function readAll() {
    const content = {};
    for (const r of readers) {
      const got = r.read();
      if (got.error) return { ok: false, error: got.error };
      if (got.value === undefined || (Array.isArray(got.value) && got.value.length === 0 && r.req)) {
        if (r.req) return { ok: false, error: `${r.label} is required` };
        continue;
      }
      content[r.key] = got.value;
    }
    return { ok: true, content };
  }
  return { node, read: readAll };
}

/** Arguments skeleton from a tool's inputSchema: defaults where given, else an empty object. */
export function defaultArguments(inputSchema) {
  const out = {};
  const props = isObj(inputSchema) && isObj(inputSchema.properties) ? inputSchema.properties : {};
  for (const [k, p] of Object.entries(props)) if (isObj(p) && "default" in p) out[k] = p.default;
  return out;
}
