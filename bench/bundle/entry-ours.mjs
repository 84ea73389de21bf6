// Bundle entry: our browser entry (pkg/index.js → wasm-bindgen glue + extras); the .wasm is counted separately.
export * from "../../pkg/index.js";
export { default } from "../../pkg/index.js";
