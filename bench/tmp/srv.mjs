import { startFastServer } from "../servers/fast-server.mjs";
const srv = await startFastServer({ dialect: process.argv[2], pollIntervalMs: 500, push: true, port: 18555 });
console.log(srv.url);
