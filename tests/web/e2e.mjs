// The page in a real browser (Debian's chromium, driven by playwright-core): load it, change
// inputs as a person would, and check that every number it shows equals the CLI's --format json
// for the same request; the inputs survive a reload through the URL; a bad value is named; the
// Serve and By-task tabs agree with `trainbudget infer` and `compare`. Screenshots go to OUT_DIR.
//   node e2e.mjs TRAINBUDGET_BINARY OUT_DIR
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { runInBrowser } from './browser.mjs';

const [bin, outDir] = process.argv.slice(2);
await runInBrowser(bin, async ({ server, browser }) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // The 400 of step 4 is the API answering a bad value, as it should; any other error counts.
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().includes('status of 400')) errors.push(m.text()); });
  // Requests the page makes go nowhere but the server (works offline: no CDN).
  page.on('request', (r) => assert.ok(r.url().startsWith(server.base), `request outside the server: ${r.url()}`));

  const cli = (args) => JSON.parse(execFileSync(bin, [...args, '--format', 'json'], { env: server.env }).toString());
  const settled = async () => {
    await page.waitForTimeout(50);
    await page.waitForSelector('body[data-busy="0"]', { timeout: 20000 });
  };
  const shown = (key) => page.$eval(`[data-key="${key}"]`, (e) => ({ value: e.dataset.value, text: e.textContent }));
  const hoursText = (h) => (h >= 24 * 365 ? `${(h / (24 * 365)).toFixed(1)} years` : h >= 72 ? `${(h / 24).toFixed(1)} days` : `${h.toFixed(1)} h`);
  const sameNumber = async (key, expected, text) => {
    const s = await shown(key);
    assert.equal(Number(s.value), expected, `${key}: page ${s.value}, CLI ${expected}`);
    if (text !== undefined) assert.equal(s.text, text, `${key} shown as ${s.text}`);
  };

  // 1. The default job, as `trainbudget estimate` gives it.
  await page.goto(`${server.base}/`);
  await settled();
  let j = cli(['estimate']);
  for (const [i, m] of j.machines.entries()) await sameNumber(`machines.${i}.hours`, m.hours, hoursText(m.hours));
  await sameNumber('memory.allocated_peak_bytes', j.memory.allocated_peak_bytes);
  assert.equal(await page.locator('#charts svg').count(), 2, 'a memory chart and an hours chart');

  // 2. Change inputs: a model, LoRA, two machines.
  await page.fill('#f-model', 'llama-3.1-8b');
  await page.selectOption('#f-method', 'lora');
  await page.fill('#f-machine', 'h100-sxm,rtx-4090');
  await settled();
  j = cli(['estimate', '--model', 'llama-3.1-8b', '--method', 'lora', '--machine', 'h100-sxm,rtx-4090']);
  for (const [i, m] of j.machines.entries()) {
    await sameNumber(`machines.${i}.hours`, m.hours, hoursText(m.hours));
    await sameNumber(`machines.${i}.memory.usable_bytes`, m.memory.usable_bytes);
    assert.equal(await page.$eval(`[data-key="machines.${i}.summary"]`, (e) => e.textContent), m.summary);
  }
  await sameNumber('memory.allocated_peak_bytes', j.memory.allocated_peak_bytes);
  await page.screenshot({ path: `${outDir}/estimate.png`, fullPage: true });

  // 2b. GRPO (docs/rl.md): the rollout's round on the page equals the CLI's.
  await page.fill('#f-micro_batch', '8');
  await page.selectOption('#f-trainer', 'grpo');
  await settled();
  j = cli(['estimate', '--model', 'llama-3.1-8b', '--method', 'lora', '--machine', 'h100-sxm,rtx-4090',
    '--micro-batch', '8', '--trainer', 'grpo']);
  for (const [i, m] of j.machines.entries()) {
    await sameNumber(`machines.${i}.rollout.time.round_seconds`, m.rollout.time.round_seconds);
    await sameNumber(`machines.${i}.memory.allocated_peak_bytes`, m.memory.allocated_peak_bytes);
    await sameNumber(`machines.${i}.hours`, m.hours, hoursText(m.hours));
    await sameNumber(`machines.${i}.rollout.limits.max_completion_length`, m.rollout.limits.max_completion_length);
  }
  // 2c. PPO: the value and reward models beside the policy, as the CLI prices them.
  await page.selectOption('#f-trainer', 'ppo');
  await settled();
  j = cli(['estimate', '--model', 'llama-3.1-8b', '--method', 'lora', '--machine', 'h100-sxm,rtx-4090',
    '--micro-batch', '8', '--trainer', 'ppo']);
  for (const [i, m] of j.machines.entries()) {
    await sameNumber(`machines.${i}.rollout.critics.value_states_bytes`, m.rollout.critics.value_states_bytes);
    await sameNumber(`machines.${i}.rollout.critics.reward_weights_bytes`, m.rollout.critics.reward_weights_bytes);
    await sameNumber(`machines.${i}.rollout.time.round_seconds`, m.rollout.time.round_seconds);
  }
  await page.selectOption('#f-trainer', 'sft');
  await page.fill('#f-micro_batch', '');
  await settled();
  j = cli(['estimate', '--model', 'llama-3.1-8b', '--method', 'lora', '--machine', 'h100-sxm,rtx-4090']);

  // 3. The URL holds the inputs: a reload shows the same job.
  const url = page.url();
  assert.match(url, /model=llama-3\.1-8b/);
  await page.goto('about:blank');
  await page.goto(url);
  await settled();
  assert.equal(await page.inputValue('#f-model'), 'llama-3.1-8b');
  await sameNumber('machines.0.hours', j.machines[0].hours);

  // A hash naming no tab or a prototype key (#mode=constructor, __proto__) opens the estimate.
  await page.goto('about:blank');
  await page.goto(`${server.base}/#mode=constructor&__proto__=x&model=llama-3.1-8b`);
  await settled();
  assert.equal(await page.getAttribute('[role=tab][data-mode="estimate"]', 'aria-selected'), 'true');
  assert.equal(await page.inputValue('#f-model'), 'llama-3.1-8b');
  await page.goto('about:blank');
  await page.goto(url);
  await settled();

  // 4. A bad value is named, on its field, and nothing is drawn from it.
  await page.fill('#f-micro_batch', '0');
  await settled();
  const problem = await page.$eval('#problems .problem', (e) => ({ field: e.dataset.field, text: e.textContent }));
  assert.equal(problem.field, 'micro_batch');
  assert.equal(await page.getAttribute('#f-micro_batch', 'aria-invalid'), 'true');
  await page.fill('#f-micro_batch', '');
  await settled();
  assert.equal(await page.locator('#problems .problem').count(), 0);

  // 4b. A pasted config.json is counted like the file: Mistral 7B's text against --model FILE.
  const config = (await import('node:fs')).readFileSync(new URL('../data/hf_configs/mistral-7b-v0.1.json', import.meta.url), 'utf8');
  await page.fill('#f-config', config);
  await settled();
  j = cli(['estimate', '--model', new URL('../data/hf_configs/mistral-7b-v0.1.json', import.meta.url).pathname, '--method', 'lora', '--machine', 'h100-sxm,rtx-4090']);
  await sameNumber('memory.allocated_peak_bytes', j.memory.allocated_peak_bytes);
  await sameNumber('machines.0.hours', j.machines[0].hours);
  await page.fill('#f-config', '');
  await page.fill('#f-model', 'llama-3.1-8b');
  await settled();

  // 5. Serve: the infer tab against `trainbudget infer`, reached with the keyboard.
  await page.focus('#tab-infer');
  await page.keyboard.press('Enter');
  await settled();
  await page.fill('#f-model', 'mistral-7b-v0.1');
  await page.selectOption('#f-weights', 'q4_k_m');
  await settled();
  j = cli(['infer', '--model', 'mistral-7b-v0.1', '--weights', 'q4_k_m', '--machine', 'h100-sxm,rtx-4090']);
  for (const [i, m] of j.machines.entries()) {
    await sameNumber(`machines.${i}.decode_tokens_per_s`, m.decode_tokens_per_s);
    await sameNumber(`machines.${i}.max_concurrency`, m.max_concurrency, String(m.max_concurrency));
  }
  await page.screenshot({ path: `${outDir}/infer.png`, fullPage: true });

  // 6. By task: the seed's pair and a 70B, against `trainbudget compare`.
  await page.click('#tab-compare');
  await settled();
  // The inputs carry over between tabs; back to the defaults for the seed's pair in bf16.
  await page.fill('#f-model', 'llama-3.1-70b');
  await page.fill('#f-machine', '');
  await page.selectOption('#f-weights', '');
  await settled();
  j = cli(['compare', '--model', 'llama-3.1-70b']);
  for (const [i, t] of j.tasks.entries()) {
    assert.equal(await page.$eval(`[data-key="tasks.${i}.winner"]`, (e) => e.dataset.value), t.winner ?? '');
  }
  await page.screenshot({ path: `${outDir}/compare.png`, fullPage: true });

  // 6b. The page as a product (issue 21). Each tab keeps its own inputs; model and machines
  // are shared.
  await page.click('#tab-estimate');
  await settled();
  await page.fill('#f-model', 'llama-3.1-8b');
  await page.fill('#f-machine', 'h100-sxm,rtx-4090');
  await page.fill('#f-micro_batch', '4');
  await settled();
  await page.click('#tab-infer');
  await settled();
  assert.equal(await page.inputValue('#f-model'), 'llama-3.1-8b', 'the model is shared');
  await page.fill('#f-context', '8192');
  await settled();
  await page.click('#tab-estimate');
  await settled();
  assert.equal(await page.inputValue('#f-micro_batch'), '4', 'the Train tab kept its micro-batch');
  assert.equal(await page.locator('#f-context').count(), 0, 'no Serve field on the Train tab');
  // Verdicts follow the summary charts, what fits first; the machine that does not fit is
  // drawn grey; the hours axis reads in time units; machines carry their device counts.
  assert.ok(await page.$eval('#charts', (c) => !!(c.compareDocumentPosition(document.querySelector('#verdicts')) & Node.DOCUMENT_POSITION_FOLLOWING)));
  j = cli(['estimate', '--model', 'llama-3.1-8b', '--machine', 'h100-sxm,rtx-4090', '--micro-batch', '4']);
  const firstShown = await page.$eval('#verdicts .verdict', (e) => e.dataset.machine);
  const fitting = j.machines.filter((m) => m.fits).sort((a, b) => a.hours - b.hours);
  assert.equal(firstShown, (fitting[0] || j.machines[0]).id);
  if (j.machines.some((m) => !m.fits)) assert.ok(await page.locator('#charts rect[data-muted="1"]').count() > 0, 'a grey bar for the miss');
  const ticks = await page.$$eval('#charts text.tick', (ts) => ts.map((t) => t.textContent));
  assert.ok(ticks.length > 0 && ticks.every((t) => /( h| min| days| weeks| years)$/.test(t)), `time ticks: ${ticks}`);
  await page.fill('#f-devices', '8');
  await settled();
  const labels = await page.$$eval('#charts svg text', (ts) => ts.map((t) => t.textContent));
  assert.ok(labels.some((t) => t.startsWith('8 × h100-sxm')), `device counts in the charts: ${labels}`);
  // No total or capacity label starts inside its row's bar or line.
  const crossing = await page.$$eval('#charts svg', (svgs) => svgs.flatMap((s) => [...s.querySelectorAll('text.total')].filter((t) => {
    const y = Number(t.getAttribute('y')) - 13;
    return [...s.querySelectorAll('rect, line')].some((r) => {
      const ry = Number(r.getAttribute('y') ?? r.getAttribute('y1'));
      const right = r.tagName === 'line' ? Number(r.getAttribute('x1')) : Number(r.getAttribute('x')) + Number(r.getAttribute('width'));
      return Math.abs(ry - y) <= 4 && right > Number(t.getAttribute('x'));
    });
  }).map((t) => t.textContent)));
  assert.deepEqual(crossing, [], 'labels crossing bars');
  await page.fill('#f-devices', '');
  // More fields come grouped, with their help; no path on the server's disk is offered; the
  // machine picker names each device and its memory.
  assert.ok(await page.locator('#more-fields fieldset[data-group="layout"] #f-tp').count() === 1);
  assert.equal(await page.locator('#f-hardware_dir').count(), 0);
  assert.ok((await page.$eval('#f-tp-help', (e) => e.textContent)).length > 10);
  assert.ok(await page.$$eval('#machines-list option', (os) => os.some((o) => o.value === 'h100-sxm' && / GB$/.test(o.textContent))));
  // The URL follows and is followed: an edited hash opens its tab with its inputs.
  await page.evaluate(() => { location.hash = 'mode=infer&model=mistral-7b-v0.1&context=4096'; });
  await settled();
  assert.equal(await page.getAttribute('#tab-infer', 'aria-selected'), 'true');
  assert.equal(await page.inputValue('#f-model'), 'mistral-7b-v0.1');
  assert.equal(await page.inputValue('#f-context'), '4096');
  // Plan: the layout table against `trainbudget plan`.
  await page.click('#tab-plan');
  await settled();
  await page.fill('#f-model', 'llama-3.1-8b');
  await page.fill('#f-machine', 'h100-sxm');
  await page.fill('#f-devices', '8');
  await settled();
  j = cli(['plan', '--model', 'llama-3.1-8b', '--machine', 'h100-sxm', '--devices', '8']);
  const heads = await page.$$eval('#plan-layouts th', (ts) => ts.map((t) => t.textContent));
  for (const h of ['tp', 'pp', 'cp', 'ep', 'dp', 'ZeRO', 'Micro-batch', 'Recompute', 'Offload', 'Memory', 'MFU', 'Hours', 'Cost', 'Framework']) assert.ok(heads.includes(h), `plan column ${h}`);
  for (const [i, c] of j.candidates.entries()) {
    await sameNumber(`candidates.${i}.hours`, c.hours, hoursText(c.hours));
    await sameNumber(`candidates.${i}.machines.0.time.mfu`, c.machines[0].time.mfu);
  }
  const row = await page.$$eval('#plan-layouts tbody tr:first-child td', (ts) => ts.map((t) => t.textContent));
  assert.equal(row[1], `${j.candidates[0].devices} × ${j.candidates[0].machine}`);
  assert.equal(row[2], String(j.candidates[0].parallel.tp));
  assert.equal(row[15], j.candidates[0].framework);
  await page.screenshot({ path: `${outDir}/plan.png`, fullPage: true });

  // 7. Accessible: every control has a label; the result is announced.
  const unlabelled = await page.$$eval('input, select', (els) => els.filter((e) => !document.querySelector(`label[for="${e.id}"]`)).map((e) => e.id));
  assert.deepEqual(unlabelled, []);
  assert.equal(await page.getAttribute('#status', 'aria-live'), 'polite');
  assert.deepEqual(errors, [], `console errors: ${errors.join('; ')}`);
  console.log('e2e: ok (estimate, url, problem, infer, compare, tabs, hash, plan, charts, labels); screenshots in', outDir);
});
