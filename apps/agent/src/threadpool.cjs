// Preload of the agent process: `node --require ./apps/agent/src/threadpool.cjs --import tsx apps/agent/src/main.ts`.
//
// Sizes libuv's thread pool, which runs every getaddrinfo name lookup (and fs, zlib, some crypto). With the
// default of 4 threads, four lookups hanging on a slow resolver stall every other lookup and file access of
// the process. libuv reads UV_THREADPOOL_SIZE once, when the pool is first used, and under ESM that happens
// before the entry module runs: Node's loader (and tsx's) read module files with asynchronous fs calls. So
// setting it in main.ts is too late; a CommonJS preload runs first (`--require` goes before `--import`).
//
// Size: one thread per job that may wait in a lookup at once (VANTAGE_AGENT_CONCURRENCY, each job does at
// most one lookup at a time), plus libuv's own 4 for everything else; at least 8, at most 128 (each thread
// reserves a stack; a resolver hanging on 128 lookups at once is broken beyond what more threads fix).
// A value the operator set is kept. This file reads the environment before config.ts can: an invalid
// VANTAGE_AGENT_CONCURRENCY falls back to its default here and is reported by config.ts.
"use strict";

const DEFAULT_CONCURRENCY = 64;
const MIN_THREADS = 8;
const MAX_THREADS = 128;

/** @param {Record<string, string | undefined>} env */
function threadpoolSize(env) {
  const raw = env.VANTAGE_AGENT_CONCURRENCY;
  const parsed = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  const concurrency = Number.isInteger(parsed) && parsed >= 1 ? parsed : DEFAULT_CONCURRENCY;
  return Math.min(MAX_THREADS, Math.max(MIN_THREADS, concurrency + 4));
}

if (!process.env.UV_THREADPOOL_SIZE) process.env.UV_THREADPOOL_SIZE = String(threadpoolSize(process.env));

module.exports = { threadpoolSize };
