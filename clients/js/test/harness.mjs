// What the conformance tests need around the client: the real server
// (.build/debug/tandem, or $TANDEM_BIN) on a free port, a TCP proxy whose
// connections can be killed, the HTTP API, HS256 tokens, and waiting for a
// condition. Each scenario file starts its own server.

import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const BINARY = process.env.TANDEM_BIN ?? join(ROOT, ".build/debug/tandem");
const START_LINE = /listening on https?:\/\/\S+?:(\d+) rooms=/;

/** A running `tandem`: `port`, `wsURL(room)`, `api(method, path, body)`, `stop(signal)`, `restart()` on the same port. */
export class Server {
  static async start(flags = [], { port = 0 } = {}) {
    const server = new Server(flags);
    await server.launch(port);
    return server;
  }

  constructor(flags) {
    this.flags = flags.includes("--data") ? flags : [...flags, "--data", ":memory:"];
    this.log = [];
    this.token = null;
  }

  launch(port) {
    return new Promise((resolvePort, reject) => {
      const proc = spawn(BINARY, ["--port", String(port), ...this.flags], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
      this.proc = proc;
      let buffered = "";
      const fail = (why) => reject(new Error(`tandem did not start (${why}):\n${this.log.slice(-20).join("\n")}`));
      proc.on("error", (error) => fail(error.message));
      proc.on("exit", (code) => fail(`exit ${code}`));
      proc.stderr.setEncoding("utf8");
      proc.stderr.on("data", (chunk) => {
        buffered += chunk;
        const lines = buffered.split("\n");
        buffered = lines.pop();
        for (const line of lines) {
          this.log.push(line);
          const match = START_LINE.exec(line);
          if (match) {
            this.port = Number(match[1]);
            resolvePort(this);
          }
        }
      });
    });
  }

  wsURL(room = "demo") {
    return `ws://127.0.0.1:${this.port}/rooms/${room}`;
  }

  /** An HTTP API call with a JSON body; resolves with {status, body}. */
  async api(method, path, body = undefined, token = this.token) {
    const headers = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (token) headers.authorization = `Bearer ${token}`;
    const answer = await fetch(`http://127.0.0.1:${this.port}${path}`, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await answer.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: answer.status, body: json ?? text };
  }

  /** The committed states of a room's controls, from the server: {id: state}. */
  async states(room = "demo") {
    const { body } = await this.api("GET", `/api/rooms/${room}`);
    return Object.fromEntries(body.controls.map((c) => [c.id, c.state]));
  }

  /** Stops the process (SIGTERM by default) and waits for it to exit. */
  stop(signal = "SIGTERM") {
    const proc = this.proc;
    if (!proc || proc.exitCode != null || proc.signalCode != null) return Promise.resolve();
    return new Promise((done) => {
      proc.removeAllListeners("exit");
      proc.on("exit", () => done());
      proc.kill(signal);
    });
  }

  /** Starts again on the same port (the address may take a moment to be free: tries until WAIT_MS have passed). */
  async restart() {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      try {
        return await this.launch(this.port);
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(100); // spaces the attempts; the deadline bounds them
      }
    }
  }
}

/**
 * A TCP proxy to `port` on 127.0.0.1: `port` is its own; `drop()` kills every
 * connection through it with a TCP reset; `block` refuses new ones while true
 * (`refused` counts them); `requests` keeps the first line of each connection's
 * HTTP request (the upgrade).
 */
export async function tcpProxy(port) {
  const sockets = new Set();
  const proxy = { block: false, refused: 0, requests: [], port: 0 };
  const server = net.createServer((client) => {
    if (proxy.block) {
      proxy.refused += 1;
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(port, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    let first = true;
    client.on("data", (chunk) => {
      if (first) {
        first = false;
        proxy.requests.push(chunk.toString("latin1").split("\r\n")[0]);
      }
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  proxy.port = server.address().port;
  proxy.drop = () => {
    for (const s of sockets) s.resetAndDestroy();
    sockets.clear();
  };
  proxy.close = () => {
    proxy.drop();
    return new Promise((done) => server.close(() => done()));
  };
  return proxy;
}

/** A server with auth on (a fresh 32-byte secret in a temp file, leeway 0 unless given): {server, token(claims), cleanup}. */
export async function authServer({ leeway = 0, flags = [] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "tandem-js-"));
  const secret = "js-client-test-secret-0123456789abcdef";
  const file = join(dir, "secret");
  writeFileSync(file, secret, { mode: 0o600 });
  const server = await Server.start(["--auth-secret-file", file, "--auth-leeway", String(leeway), ...flags]);
  const token = (claims = {}) => mintToken(secret, claims);
  server.token = token({ role: "admin", sub: "tests", name: "tests" });
  return { server, token, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const b64url = (data) => Buffer.from(data).toString("base64url");

/** An HS256 JWT: sub, room "*", role editor, exp in `ttl` s, unless the claims say otherwise. */
export function mintToken(secret, { ttl = 3600, ...claims } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const payload = { sub: "u-test", room: "*", role: "editor", iat: now, exp: now + ttl, ...claims };
  const head = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const body = b64url(JSON.stringify(payload));
  const signature = createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url");
  return `${head}.${body}.${signature}`;
}

export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** The bound of every wait for something that will happen: generous, so that only a hang reaches it on a loaded machine. */
export const WAIT_MS = 30_000;

/** Waits until `predicate()` is truthy (polling every 20 ms) and returns its value; fails after `timeout` ms with `what`. */
export async function until(predicate, what = "the condition", timeout = WAIT_MS) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** A temporary directory, removed by the returned function. */
export function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), "tandem-js-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
