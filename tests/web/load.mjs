// A bounded load on loopback and hostile clients against `trainbudget serve`:
//  - 10,000 requests from 8 concurrent keep-alive clients (estimates, serving estimates, field
//    tables): zero errors, and the resident memory after the run within 10 % (+ 8 MiB) of what
//    it was after the first 1,000;
//  - malformed JSON, a 2 MiB body, wrong types, unknown keys: 4xx with a JSON message;
//  - a slow client that never finishes its request is cut off after the request deadline (408),
//    while others are answered meanwhile;
//  - hostile clients (docs/serve.md, "Limits"): a compressed body, a header flood, a head that
//    never ends, a foreign Host, a form post, eight clients sending a byte a second, 300
//    connections at once, 16 heavy plans, 8 estimates and 8 compares of the deepest model a
//    request may declare, clients that leave before their answer: each refused
//    or bounded, a cheap request answered within a second meanwhile, the resident memory under
//    a stated bound; the server is still up at the end.
//   node load.mjs TRAINBUDGET_BINARY
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { startServer } from './server.mjs';

const [bin] = process.argv.slice(2);
const server = await startServer(bin);
// Under the sanitizers (the asan preset sets TRAINBUDGET_SANITIZED) every computation runs 10-20x
// slower and the process carries the sanitizer's shadow memory and quarantine: the clients wait
// 20x longer for a heavy answer, and the hostile clients' memory bound applies to what they add
// to the resident memory after the warm-up, not to the whole, plus the 256 MiB of freed blocks
// AddressSanitizer holds back from reuse (its default quarantine_size_mb). The bounds on cheap
// requests (answered within a second) and on growth over the 9,000 requests are the same.
const sanitized = process.env.TRAINBUDGET_SANITIZED === '1';
const clientTimeoutMs = sanitized ? 400000 : 20000;
let warmRss = 0;
let agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function request(method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method, path, agent, headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.setTimeout(clientTimeoutMs, () => req.destroy(new Error('client timeout')));
    if (body !== undefined) req.write(body);
    req.end();
  });
}
const rssKiB = () => Number(readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]);

const MIX = [
  ['POST', '/api/estimate', '{}'],
  ['POST', '/api/estimate', '{"params": "70B", "machine": "all", "devices": "64", "zero": "3"}'],
  ['POST', '/api/estimate', '{"model": "llama-3.1-8b", "method": "qlora", "machine": "rtx-4090"}'],
  ['POST', '/api/infer', '{"model": "llama-3.1-8b", "weights": "q4_k_m"}'],
  ['GET', '/api/fields?command=infer', undefined],
];
let errors = 0;
async function client(n, offset) {
  for (let i = 0; i < n; i++) {
    const [m, p, b] = MIX[(i + offset) % MIX.length];
    const r = await request(m, p, b);
    if (r.status !== 200) { errors++; console.error(`${m} ${p}: ${r.status} ${r.body.slice(0, 200)}`); }
  }
}
// Raw bytes to the server; resolves with what it answered (until it closed or `ms` passed).
function raw(bytes, ms = 8000) {
  return new Promise((resolve) => {
    const s = net.connect(server.port, '127.0.0.1');
    let got = '';
    const done = () => { clearTimeout(t); s.destroy(); resolve(got); };
    const t = setTimeout(done, ms);
    s.on('data', (d) => { got += d; });
    s.on('close', done);
    s.on('error', done);
    s.write(bytes);
  });
}
const status = (answer) => Number((answer.match(/^HTTP\/1\.1 (\d+)/) || [])[1]);

// A cheap request answered within a second while hostile clients hold the server.
async function cheapWithinASecond(what) {
  const t0 = Date.now();
  const r = await request('GET', '/api/fields?command=estimate', undefined);
  const ms = Date.now() - t0;
  assert.equal(r.status, 200, `${what}: ${r.status}`);
  assert.ok(ms < 1000, `${what}: a cheap request took ${ms} ms`);
  console.log(`${what}: a cheap request answered in ${ms} ms`);
}

async function hostile() {
  const head = (extra, body = '') =>
    `POST /api/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}Content-Length: ${body.length}\r\n\r\n${body}`;
  // A compressed body is refused from its head, before a byte of it is read.
  assert.equal(status(await raw(head('Content-Encoding: gzip\r\n', 'x'.repeat(1000)))), 415);
  // A transfer coding other than chunked is not read.
  assert.equal(status(await raw('POST /api/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n')), 501);
  // A header flood: 2,000 fields (the cap is 64), and a head that never ends (1 MB, no blank line).
  assert.equal(status(await raw(head(Array.from({ length: 2000 }, (_, i) => `X-${i}: 1\r\n`).join(''), '{}'))), 431);
  assert.equal(status(await raw(`GET / HTTP/1.1\r\nX: ${'a'.repeat(1 << 20)}`)), 431);
  // A foreign Host (DNS rebinding) and a form post (a CORS simple request).
  assert.equal(status(await raw('GET /api/fields HTTP/1.1\r\nHost: evil.example\r\n\r\n')), 403);
  assert.equal(status(await raw('POST /api/estimate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 2\r\n\r\n{}')), 415);
  // A body announced past the cap is refused from its head.
  assert.equal(status(await raw(head('').replace('Content-Length: 0', 'Content-Length: 1073741824'))), 413);

  // Eight clients sending a byte a second hold no worker.
  const slow = Array.from({ length: 8 }, () => {
    const s = net.connect(server.port, '127.0.0.1');
    s.on('error', () => {});
    const text = 'POST /api/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\n';
    let i = 0;
    const tick = setInterval(() => { if (i < text.length) s.write(text[i++]); }, 1000);
    return { s, tick };
  });
  await new Promise((r) => setTimeout(r, 1500));
  await cheapWithinASecond('8 slow clients');
  for (const { s, tick } of slow) { clearInterval(tick); s.destroy(); }

  // 300 connections at once (the server holds 256): the rest get 503, nobody waits.
  const many = Array.from({ length: 300 }, () => {
    const s = net.connect(server.port, '127.0.0.1');
    s.on('error', () => {});
    return s;
  });
  await new Promise((r) => setTimeout(r, 500));
  for (const s of many) s.destroy();
  await new Promise((r) => setTimeout(r, 200));

  // 16 heavy plans at once, 16 more that leave before their answer, and a cheap request.
  const plan = '{"model": "llama-3.1-70b", "machine": "h100-sxm,a100-sxm-80gb", "devices": "64", "tokens": "1T"}';
  const leave = Array.from({ length: 16 }, () => {
    const s = net.connect(server.port, '127.0.0.1');
    s.on('error', () => {});
    s.write(`POST /api/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${plan.length}\r\n\r\n${plan}`);
    setTimeout(() => s.destroy(), 50);
    return s;
  });
  const heavy = Array.from({ length: 16 }, () => request('POST', '/api/plan', plan));
  await new Promise((r) => setTimeout(r, 300));
  await cheapWithinASecond('16 heavy plans');
  const answers = await Promise.all(heavy);
  for (const a of answers) assert.equal(a.status, 200, a.body.slice(0, 200));
  void leave;

  // The heaviest estimates and compares one request may declare (a model of 4,096 layers, the
  // bound), 8 of each at once, and a cheap request meanwhile: GETs have a lane of their own.
  const deepModel = JSON.stringify({
    model_type: 'llama', hidden_size: 8192, intermediate_size: 28672, num_hidden_layers: 4096,
    num_attention_heads: 64, num_key_value_heads: 8, vocab_size: 128256, max_position_embeddings: 8192,
  });
  const deep = JSON.stringify({ model: deepModel, machine: 'h100-sxm', devices: '1024' });
  const deepCompare = JSON.stringify({ model: deepModel });
  const deepWork = [
    ...Array.from({ length: 8 }, () => request('POST', '/api/estimate', deep)),
    ...Array.from({ length: 8 }, () => request('POST', '/api/compare', deepCompare)),
  ];
  await new Promise((r) => setTimeout(r, 100));
  await cheapWithinASecond('8 deepest estimates and 8 compares');
  for (const a of await Promise.all(deepWork)) assert.equal(a.status, 200, a.body.slice(0, 200));
  const rss = rssKiB();
  const base = sanitized ? warmRss + 256 * 1024 : 0;
  console.log(`hostile clients: RSS ${rss} KiB${sanitized ? ` (${warmRss} KiB after the warm-up, sanitized)` : ''}`);
  assert.ok(rss - base < 256 * 1024, `resident memory ${rss} KiB after the hostile clients (bound 256 MiB${sanitized ? ' over the warm-up and the quarantine' : ''})`);
}

let failed = false;
try {
  const t0 = Date.now();
  await Promise.all(Array.from({ length: 8 }, (_, k) => client(125, k)));  // 1,000 to warm up
  const warm = rssKiB();
  warmRss = warm;
  await Promise.all(Array.from({ length: 8 }, (_, k) => client(1125, k)));  // 9,000 more
  const after = rssKiB();
  const seconds = (Date.now() - t0) / 1000;
  console.log(`load: 10000 requests, 8 clients, ${seconds.toFixed(1)} s (${(10000 / seconds).toFixed(0)}/s), ${errors} errors, RSS ${warm} -> ${after} KiB`);
  assert.equal(errors, 0);
  assert.ok(after <= warm * 1.10 + 8192, `resident memory grew from ${warm} to ${after} KiB`);

  // Bad input: every answer a 4xx with a JSON message naming what is wrong.
  const bad = async (method, path, body, status, field) => {
    const r = await request(method, path, body);
    assert.equal(r.status, status, `${path} ${String(body).slice(0, 40)}: ${r.status} ${r.body.slice(0, 200)}`);
    const j = JSON.parse(r.body);
    assert.ok(j.problems.length > 0);
    if (field !== undefined) assert.equal(j.problems[0].field, field);
  };
  await bad('POST', '/api/estimate', '{"params": ', 400, 'request');
  await bad('POST', '/api/estimate', '[1, 2]', 400, 'request');
  await bad('POST', '/api/estimate', '{"params": true}', 400, 'params');
  await bad('POST', '/api/estimate', '{"devices": [1]}', 400);
  await bad('POST', '/api/estimate', '{"no_such_field": "1"}', 400, 'no_such_field');
  await bad('POST', '/api/infer', '{"model": "llama-3.1-8b", "concurrency": "0"}', 400, 'concurrency');
  await bad('POST', '/api/estimate', 'x'.repeat(2 * 1024 * 1024), 413);
  await bad('GET', '/api/nowhere', undefined, 404);

  // A slow client: a request whose body never arrives. The server gives up after its request
  // deadline (5 s) with a 408 and answers everyone else meanwhile.
  agent.destroy();
  agent = new http.Agent({ keepAlive: false });
  const slow = net.connect(server.port, '127.0.0.1');
  slow.write('POST /api/estimate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"par');
  let answer = '';
  const ended = new Promise((resolve) => {
    slow.on('data', (d) => { answer += d; resolve(Date.now()); });
    slow.on('close', () => resolve(Date.now()));
  });
  const started = Date.now();
  const meanwhile = await request('POST', '/api/estimate', '{}');
  assert.equal(meanwhile.status, 200);
  const cutAt = await Promise.race([ended, new Promise((r) => setTimeout(() => r(null), 20000))]);
  assert.ok(cutAt !== null, 'the slow client was never cut off');
  assert.match(answer, /^HTTP\/1\.1 408/, `the slow client's answer: ${answer.slice(0, 80)}`);
  slow.destroy();
  console.log(`slow client answered 408 after ${((cutAt - started) / 1000).toFixed(1)} s`);
  await hostile();
  const last = await request('GET', '/api/fields', undefined);
  assert.equal(last.status, 200, 'the server is up at the end');
  console.log('load: ok');
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  agent.destroy();
  server.stop();
}
process.exit(failed ? 1 : 0);
