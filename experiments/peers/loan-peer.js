#!/usr/bin/env node
// The Node.js peer of the loan service for experiments/bench.sh: the same routes and the same JSON bodies. Every
// answer is framed as the lesson's single-process server frames it (no Date header, the content type set before
// writeHead, the body in one chunk, Node's default keep-alive of 5 s), so that /books costs what the lesson's costs.
//   node experiments/peers/loan-peer.js [--port P] [--cluster N] [--resolution-ms MS] [--shed-delay-ms MS] [--http2]
// Single process by default; --cluster N forks N workers on one port and forks a new one for each that exits.
// --http2: node:http2 without TLS (h2c, prior knowledge only, as Node serves it) in place of node:http, the same
// handler on its compatibility API; every stream of every connection runs on the one event loop.
// /member/verify-pooled derives on libuv's pool (UV_THREADPOOL_SIZE, default 4), like the loan service's crypto pool;
// /member/verify-blocking with scryptSync, on the event loop, as the lesson's first server does.
// /runtime reports the event loop's delay in the loan service's shape (carrierDelay): a timer every --resolution-ms
// (10, Node's default) records how late it fired, the samples a stall swallowed filled in, as the loan service's
// probe does; and, beside it, Node's own monitorEventLoopDelay at the same resolution (eventLoopDelay).
// --shed-delay-ms: the loan service's delay guard (fastify's under-pressure does the same on monitorEventLoopDelay):
// the heavy routes answer 503 overloaded with Retry-After while the probe's p99 over its last one-second window is
// over the bound, or while its timer is late by more than it now. Not monitorEventLoopDelay's own histogram: its timer
// runs after the probe's, so a stall reaches its window one window late, after the next heavy request was let in.
// Prints one start-up line per serving process: "loan-peer serving pid=... address=http://127.0.0.1:P ...".
"use strict";
const cluster = require("node:cluster");
const http = require("node:http");
const http2 = require("node:http2");
const crypto = require("node:crypto");
const { createHistogram, monitorEventLoopDelay } = require("node:perf_hooks");

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? Number(args[i + 1]) : fallback;
};
const port = option("--port", 0);
const workers = option("--cluster", 0);
const resolutionMs = option("--resolution-ms", 10);
const shedDelayMs = option("--shed-delay-ms", 0);
const h2c = args.includes("--http2");

// The loan service's bytes, so both sides write and parse the same amount.
const BOOKS = Buffer.from(JSON.stringify({
  books: [{ isbn: "978-0262033848", title: "Introduction to Algorithms", shelf: "R-12" }],
}));
const JSON_TYPE = "application/json; charset=utf-8";
// The loan service's member check cost (N=65536, r=8, p=8): 64 MiB per derivation, so maxmem above that.
const COST = { N: 65536, r: 8, p: 8, maxmem: 256 * 1024 * 1024 };
const MAX_WAIT_MS = 10000;

function send(res, status, body) {
  res.writeHead(status).end(body);
}

// The loan service's LatencyWindows: a histogram since the start and one per second, the last 10 of them summed.
function latencyWindows() {
  const sinceStart = createHistogram();
  let current = createHistogram();
  const last = [];
  let lastWindowP99Ms = 0;
  const summary = (h) => h.count === 0 ? { count: 0, p50Ms: null, p99Ms: null, maxMs: null }
    : { count: h.count, p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max) };
  return {
    record: (nanos) => current.record(Math.max(1, Math.round(nanos))),
    roll() {
      lastWindowP99Ms = current.count === 0 ? 0 : ms(current.percentile(99));
      sinceStart.add(current);
      last.push(current);
      if (last.length > 10) last.shift();
      current = createHistogram();
    },
    lastWindowP99Ms: () => lastWindowP99Ms,
    figures() {
      const sum = createHistogram();
      for (const h of last) sum.add(h);
      return { sinceStart: summary(sinceStart), last10s: summary(sum) };
    },
  };
}
// nanoseconds in milliseconds, to the microsecond
const ms = (nanos) => Math.round(nanos / 1000) / 1000;

// The loan service's carrier-delay probe on the event loop: sleep one resolution, record how late the timer fired,
// from the instant it was due, and one more sample for each interval a stall swallowed; roll the windows each second.
function delayProbe() {
  const interval = resolutionMs * 1e6;
  const windows = latencyWindows();
  let nextRoll = performance.now() + 1000;
  let due = 0n;
  const tick = () => {
    const late = Math.max(0, Number(process.hrtime.bigint() - due));
    windows.record(late);
    for (let missing = late - interval; missing >= interval; missing -= interval) windows.record(missing);
    if (performance.now() >= nextRoll) {
      windows.roll();
      nextRoll = Math.max(nextRoll + 1000, performance.now() + 500);
    }
    arm();
  };
  const arm = () => {
    due = process.hrtime.bigint() + BigInt(interval);
    setTimeout(tick, resolutionMs).unref();
  };
  arm();
  // how late the timer is right now: a stall shows here before the probe runs again
  windows.lateNowMs = () => Math.max(0, Number(process.hrtime.bigint() - due)) / 1e6;
  return windows;
}

function serve() {
  let derivationsRunning = 0; // handed to the pool and not yet called back
  // Node's own histogram holds the time between its timer's callbacks: less the resolution, it is the lateness too
  const late = (nanos) => ms(Math.max(0, nanos - resolutionMs * 1e6));
  const nodeDelay = monitorEventLoopDelay({ resolution: resolutionMs });
  nodeDelay.enable();
  let shed = 0;
  const delays = delayProbe();
  const shedding = () => shedDelayMs > 0
    && (delays.lastWindowP99Ms() > shedDelayMs || delays.lateNowMs() > shedDelayMs);
  // the heavy routes ask first; answers true when it has refused the request
  const refused = (res) => {
    if (!shedding()) return false;
    shed++;
    res.setHeader("retry-after", "1");
    send(res, 503, JSON.stringify({ error: "overloaded", message: "the event loop's delay is over " + shedDelayMs + " ms" }));
    return true;
  };
  const server = (h2c ? http2 : http).createServer((req, res) => {
    res.sendDate = false;
    res.setHeader("content-type", JSON_TYPE);
    // the light route without parsing the URL: a request for exactly /books has no query to read
    if (req.url === "/books") return send(res, 200, BOOKS);
    const url = new URL(req.url, "http://local");
    switch (url.pathname) {
      case "/books":
        return send(res, 200, BOOKS);
      case "/catalog/lookup": {
        const ms = Number.parseInt(url.searchParams.get("ms") ?? "", 10);
        if (!(ms >= 0 && ms <= MAX_WAIT_MS)) {
          return send(res, 400, JSON.stringify({ error: "bad_query", message: "ms must be from 0 to " + MAX_WAIT_MS }));
        }
        return setTimeout(() => send(res, 200, JSON.stringify({ waitedMs: ms })), ms);
      }
      case "/member/verify-blocking": {
        if (refused(res)) return;
        const key = crypto.scryptSync("password", "salt", 32, COST);
        return send(res, 200, JSON.stringify({ digest: key.toString("hex").slice(0, 16), path: url.pathname }));
      }
      case "/member/verify-pooled":
        if (refused(res)) return;
        derivationsRunning++;
        return crypto.scrypt("password", "salt", 32, COST, (err, key) => {
          derivationsRunning--;
          if (err) return send(res, 500, JSON.stringify({ error: "derivation", message: err.message }));
          send(res, 200, JSON.stringify({ digest: key.toString("hex").slice(0, 16), path: url.pathname }));
        });
      case "/runtime":
        return send(res, 200, JSON.stringify({
          pid: process.pid,
          workerId: cluster.isWorker ? cluster.worker.id : 0,
          runtime: "node",
          nodeVersion: process.version,
          threadpool: Number(process.env.UV_THREADPOOL_SIZE || 4),
          derivationsRunning,
          carrierDelay: { on: true, thread: "event-loop", resolutionMs, lateNowMs: delays.lateNowMs(), ...delays.figures(),
            scheduler: null },
          eventLoopDelay: { source: "monitorEventLoopDelay, less the resolution", resolutionMs,
            count: nodeDelay.count, p50Ms: late(nodeDelay.percentile(50)), p99Ms: late(nodeDelay.percentile(99)),
            maxMs: late(nodeDelay.max) },
          overload: { shedDelayMs: shedDelayMs > 0 ? shedDelayMs : null, shedding: shedding(), shedByDelay: shed },
        }));
      default:
        return send(res, 404, JSON.stringify({ error: "route_not_found", message: "no route " + url.pathname }));
    }
  });
  server.listen({ port, host: "127.0.0.1", backlog: 8192 }, () => {
    console.log(`loan-peer serving pid=${process.pid} address=http://127.0.0.1:${server.address().port}`
      + ` node=${process.version} threadpool=${process.env.UV_THREADPOOL_SIZE || 4}`
      + ` protocol=${h2c ? "h2c" : "http/1.1"}`);
  });
}

if (workers > 0 && cluster.isPrimary) {
  let stopping = false;
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on("exit", (worker) => {
    if (stopping) return;
    console.log(`loan-peer worker pid=${worker.process.pid} exited, forking a replacement`);
    cluster.fork();
  });
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers)) worker.process.kill("SIGTERM");
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  console.log(`loan-peer primary pid=${process.pid} workers=${workers}`);
} else {
  serve();
}
