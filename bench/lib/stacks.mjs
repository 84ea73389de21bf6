// Loads a stack adapter by name: sdk1 (TS SDK v1), ext (ext-tasks on client v2), ours (pkg/).
export async function loadStack(name) {
  switch (name) {
    case "sdk1": return import("../stacks/sdk1.mjs");
    case "ext": return import("../stacks/ext.mjs");
    case "ours": return import("../stacks/ours.mjs");
    default: throw new Error(`unknown stack ${name}`);
  }
}
