// Bundle entry: our core build's browser entry (pkg/core/index.js → wasm-bindgen glue + extras); the .wasm is counted separately.
export * from "../../pkg/core/index.js";
export { default } from "../../pkg/core/index.js";
