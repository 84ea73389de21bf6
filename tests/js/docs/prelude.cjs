// What the runnable doc blocks leave to the reader, defined for a run in Node: the server's URL, and
// the app's helpers, which print what they are given.
globalThis.url = process.env.DOC_TEST_URL;
globalThis.token = async () => "doc-test-token";
globalThis.render = (...values) => console.log("render", ...values);
globalThis.show = (text) => console.log("show", text);
globalThis.notify = (done) => console.log("notify", done.status);
