// A local TLS + HTTP/2 reverse proxy (Debian's nginx) in front of the bench servers, for pages that reach
// a server over HTTP/2 on another origin: https://127.0.0.1:<port>/p/<upstream port>/<path> proxies to
// http://127.0.0.1:<upstream port>/<path>, streaming (no buffering), with no Timing-Allow-Origin added.
// A self-signed certificate is made once with openssl; Chromium runs with --ignore-certificate-errors.
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";

const NGINX = "/usr/sbin/nginx";
export const nginxAvailable = () => existsSync(NGINX);

const freePort = () => new Promise((resolve) => {
  const s = net.createServer();
  s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

/**
 * `slots` listening ports (one origin per stack measured side by side: none shares another's connection);
 * `dir` holds the certificate, the configuration, the logs and the temporary files.
 */
export async function startNginx(slots, dir) {
  mkdirSync(path.join(dir, "logs"), { recursive: true });
  const cert = path.join(dir, "cert.pem");
  const key = path.join(dir, "key.pem");
  if (!existsSync(cert)) {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=127.0.0.1",
      "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert], { stdio: "ignore" });
  }
  const ports = [];
  for (let i = 0; i < slots; i++) ports.push(await freePort());
  const conf = `worker_processes 1;
user root;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
${ports.map((p) => `    listen 127.0.0.1:${p} ssl http2;`).join("\n")}
    ssl_certificate ${cert};
    ssl_certificate_key ${key};
    location ~ ^/p/(\\d+)(/.*)$ {
      proxy_pass http://127.0.0.1:$1$2$is_args$args;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 600s;
    }
  }
}
`;
  const confPath = path.join(dir, "nginx.conf");
  writeFileSync(confPath, conf);
  const child = spawn(NGINX, ["-p", dir, "-c", confPath, "-g", "daemon off;"], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr.on("data", (c) => { err += c; });
  // Ready once it accepts a TLS connection.
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${err.trim()}`);
    const up = await new Promise((r) => { const s = net.connect(ports[0], "127.0.0.1", () => { s.end(); r(true); }); s.on("error", () => r(false)); });
    if (up) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    /** The https URL through the proxy (its port number `slot`) for a bench server's http://127.0.0.1:<port>/<path> URL. */
    proxied: (url, slot = 0) => { const u = new URL(url); return `https://127.0.0.1:${ports[slot % ports.length]}/p/${u.port}${u.pathname}${u.search}`; },
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    }),
  };
}
