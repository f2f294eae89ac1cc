// A bounded load on loopback and hostile clients against `trainbudget serve`:
//  - 10,000 requests from 8 concurrent keep-alive clients (estimates, serving estimates, field
//    tables): zero errors, and the resident memory after the run within 10 % (+ 8 MiB) of what
//    it was after the first 1,000;
//  - malformed JSON, a 2 MiB body, wrong types, unknown keys: 4xx with a JSON message;
//  - a slow client that never finishes its request is cut off after the read timeout, while
//    others are answered meanwhile; the server is still up at the end.
//   node load.mjs TRAINBUDGET_BINARY
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { startServer } from './server.mjs';

const [bin] = process.argv.slice(2);
const server = await startServer(bin);
let agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function request(method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method, path, agent, headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.setTimeout(20000, () => req.destroy(new Error('client timeout')));
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
let failed = false;
try {
  const t0 = Date.now();
  await Promise.all(Array.from({ length: 8 }, (_, k) => client(125, k)));  // 1,000 to warm up
  const warm = rssKiB();
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

  // A slow client: a request whose body never arrives. The server gives up after its read
  // timeout (5 s) with a 400 and answers everyone else meanwhile. (The load's idle keep-alive
  // connections are closed first: each holds one of the server's worker threads.)
  agent.destroy();
  agent = new http.Agent({ keepAlive: false });
  const slow = net.connect(server.port, '127.0.0.1');
  slow.write('POST /api/estimate HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"par');
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
  assert.match(answer, /^HTTP\/1\.1 400/, `the slow client's answer: ${answer.slice(0, 80)}`);
  slow.destroy();
  console.log(`slow client answered 400 after ${((cutAt - started) / 1000).toFixed(1)} s`);
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
