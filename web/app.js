// trainbudget's page: the form comes from GET /api/fields, every change POSTs the inputs to the
// same API the command line's --format json answers, and the result is drawn as it arrives.
// No framework, nothing fetched from elsewhere. Every number shown carries data-key (its JSON
// path) and data-value (the JSON number), so tests compare the page with the CLI exactly.
'use strict';

const MAIN = {
  estimate: ['model', 'params', 'method', 'trainer', 'tokens', 'recipe', 'machine', 'devices', 'framework',
    'micro_batch', 'seq_len', 'recompute', 'lora_rank', 'lora_targets', 'utilization'],
  infer: ['model', 'params', 'machine', 'weights', 'kv_dtype', 'context', 'concurrency', 'prompt', 'tp'],
  compare: ['model', 'params', 'machine', 'tokens', 'weights', 'context', 'lora_rank', 'pretrain_devices'],
  plan: ['model', 'params', 'machine', 'devices', 'tokens', 'objective', 'deadline_days', 'top'],
};
// Published model-FLOPs utilization of large runs (38-56 %: Llama 3 405B, Megatron-Core, PaLM;
// the estimate's kPublishedMfuLow/High): the band drawn around the hours.
const MFU_BAND = [0.38, 0.56];

// Each tab keeps its own inputs; the model and the machines are the same question in every tab.
const SHARED = ['model', 'params', 'machine'];
// Fields the page does not offer: paths on the server's disk (the API refuses them anyway).
const HIDDEN = ['format', 'hardware_dir', 'dataset_file'];
const GROUPS = { job: 'Job', step: 'Step', layout: 'Layout', cluster: 'Cluster', output: 'Output' };
const state = { mode: 'estimate', fields: {}, byMode: { estimate: {}, infer: {}, compare: {}, plan: {} }, timer: null, seq: 0 };
state.values = state.byMode.estimate;
// Switches tab: the new tab's own inputs, with the shared ones carried over.
function switchMode(mode) {
  const from = state.values;
  const to = state.byMode[mode];
  for (const k of SHARED) { if (k in from) to[k] = from[k]; else delete to[k]; }
  state.mode = mode;
  state.values = to;
  for (const id of ['problems', 'verdicts', 'charts', 'tables']) $(id).replaceChildren();
}
const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}
function svg(tag, attrs = {}, text) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
const GB = (b) => `${(b / 1e9).toFixed(1)} GB`;
function hoursText(h) {
  if (h >= 24 * 365) return `${(h / (24 * 365)).toFixed(1)} years`;
  if (h >= 72) return `${(h / 24).toFixed(1)} days`;
  return `${h.toFixed(1)} h`;
}
// A number with its JSON path, shown formatted.
function num(key, value, text) {
  return el('span', { 'data-key': key, 'data-value': String(value), text });
}

// ---- the form --------------------------------------------------------------------------
function choices(f) {
  return /^[\w.:-]+(\|[\w.:-]+)+$/.test(f.accepted) ? f.accepted.split('|') : null;
}
function input(f) {
  const id = `f-${f.key}`;
  let control;
  if (f.type === 'flag') {
    control = el('input', { id, type: 'checkbox', name: f.key });
    control.checked = state.values[f.key] === 'true';
  } else if (choices(f)) {
    control = el('select', { id, name: f.key });
    control.append(el('option', { value: '', text: f.default ? `${f.default} (default)` : '(default)' }));
    for (const c of choices(f)) control.append(el('option', { value: c, text: c }));
    control.value = state.values[f.key] || '';
  } else {
    control = el('input', { id, name: f.key, type: 'text', placeholder: f.default || '', autocomplete: 'off' });
    if (f.key === 'model') control.setAttribute('list', 'models-list');
    if (f.key === 'machine') control.setAttribute('list', 'machines-list');
    const v = state.values[f.key] || '';
    control.value = f.key === 'model' && v.trim().startsWith('{') ? '' : v;
  }
  control.setAttribute('aria-describedby', `${id}-help`);
  control.title = `${f.help} (accepted: ${f.accepted})`;
  const help = el('small', { id: `${id}-help`, class: 'help', text: f.help });
  const label = el('label', { for: id, text: f.key.replaceAll('_', ' ') });
  control.addEventListener(f.type === 'flag' || control.tagName === 'SELECT' ? 'change' : 'input', () => {
    const v = f.type === 'flag' ? (control.checked ? 'true' : '') : control.value.trim();
    if (v) state.values[f.key] = v; else delete state.values[f.key];
    schedule();
  });
  return el('div', { class: 'field' }, label, control, help);
}
// A pasted config.json goes in the model field as its text (the API counts it as a file).
function pasteBox() {
  const area = el('textarea', { id: 'f-config', rows: '3', placeholder: '{ "model_type": "llama", ... }', spellcheck: 'false' });
  const v = state.values.model || '';
  if (v.trim().startsWith('{')) area.value = v;
  area.addEventListener('input', () => {
    const text = area.value.trim();
    const model = $('f-model');
    if (text) { state.values.model = text; if (model) model.value = ''; } else { delete state.values.model; }
    schedule();
  });
  return el('div', { class: 'field' }, el('label', { for: 'f-config', text: 'or paste config.json' }), area);
}
async function buildForm() {
  const res = await fetch(`/api/fields?command=${state.mode}`);
  const fields = await res.json();
  state.fields = Object.fromEntries(fields.map((f) => [f.key, f]));
  const main = $('main-fields');
  const more = $('more-fields');
  main.replaceChildren(el('legend', { text: 'Inputs' }));
  more.replaceChildren();
  for (const key of MAIN[state.mode]) {
    if (!state.fields[key]) continue;
    main.append(input(state.fields[key]));
    if (key === 'model') main.append(pasteBox());
  }
  // The rest by group (job, step, layout, cluster), each field with its help.
  const groups = {};
  for (const f of fields) {
    if (MAIN[state.mode].includes(f.key) || HIDDEN.includes(f.key)) continue;
    (groups[f.group] ||= []).push(f);
  }
  for (const [g, list] of Object.entries(groups)) {
    more.append(el('fieldset', { class: 'group', 'data-group': g }, el('legend', { text: GROUPS[g] || g }), ...list.map(input)));
  }
}

// ---- the request -----------------------------------------------------------------------
function body() {
  const out = {};
  for (const [k, v] of Object.entries(state.values)) if (k in state.fields) out[k] = v;
  return out;
}
function cliLine() {
  const words = ['trainbudget', state.mode];
  for (const [k, v] of Object.entries(body())) {
    words.push(`--${k.replaceAll('_', '-')}`);
    if (v !== 'true') words.push(/^[\w.,:@/-]+$/.test(v) ? v : `'${v.replaceAll("'", "'\\''")}'`);
  }
  return words.join(' ');
}
function saveUrl() {
  const p = new URLSearchParams({ mode: state.mode, ...body() });
  history.replaceState(null, '', `#${p.toString()}`);
  state.hash = location.hash;
  $('cli').textContent = cliLine();
}
// data-busy on <body>: 1 from a change until its answer is drawn (tests wait for 0).
function busy(on) { document.body.dataset.busy = on ? '1' : '0'; }
function schedule() {
  busy(true);
  clearTimeout(state.timer);
  state.timer = setTimeout(run, 250);
}
async function run() {
  busy(true);
  saveUrl();
  const seq = ++state.seq;
  const mode = state.mode;
  $('status').textContent = 'Computing…';
  let res;
  try {
    res = await fetch(`/api/${state.mode}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body()) });
  } catch (e) {
    $('status').textContent = `The server did not answer: ${e}`;
    busy(false);
    return;
  }
  const j = await res.json();
  if (seq !== state.seq || mode !== state.mode) return;  // a newer request, or another tab's
  for (const c of document.querySelectorAll('[aria-invalid=true]')) c.removeAttribute('aria-invalid');
  $('problems').replaceChildren();
  if (!res.ok) {
    $('status').textContent = 'The request has problems:';
    for (const p of j.problems || []) {
      const field = p.field ? `${p.field}: ` : '';
      const acc = p.accepted ? ` (accepted: ${p.accepted})` : '';
      $('problems').append(el('p', { class: 'problem', 'data-field': p.field, text: `${field}${p.message}${acc}` }));
      const control = $(`f-${p.field}`);
      if (control) control.setAttribute('aria-invalid', 'true');
    }
    busy(false);
    return;
  }
  const notes = JSON.parse(res.headers.get('X-Trainbudget-Problems') || '[]');
  for (const n of notes) $('problems').append(el('p', { class: 'note', text: `${n.kind}: ${n.field}: ${n.message}` }));
  $('status').textContent = 'Up to date.';
  render[state.mode](j);
  busy(false);
}

// ---- charts ----------------------------------------------------------------------------
// Stacked bars, one per row, against a capacity mark: rows [{label, parts: [{name, bytes}], capacity}].
function stackedBars(title, rows, allNames) {
  rows = rows.map((r) => ({ ...r, parts: r.parts.filter((p) => p.bytes > 0) }));
  const names = allNames.filter((n) => rows.some((r) => r.parts.some((p) => p.name === n)));
  const W = 720, left = 190, right = 20, rowH = 30, top = 10;
  // The legend wraps: one line per ~520 px of names.
  const lines = [[]];
  let width = 0;
  for (const n of names) {
    const w = 24 + n.length * 7;
    if (width + w > W - left && lines[lines.length - 1].length) { lines.push([]); width = 0; }
    lines[lines.length - 1].push(n);
    width += w;
  }
  const max = Math.max(...rows.map((r) => Math.max(r.capacity || 0, r.parts.reduce((a, p) => a + p.bytes, 0))), 1);
  // The bars end 190 px short of the edge: each row's total and capacity are written right of
  // both its bar and its capacity line, so no label crosses a bar.
  const scale = (b) => (b / max) * (W - left - right - 170);
  const palette = ['#0b4f9c', '#d1495b', '#edae49', '#00798c', '#66a182', '#8d6a9f', '#555'];
  const color = (n) => palette[names.indexOf(n) % palette.length];
  const H = top + rows.length * rowH + 10 + lines.length * 18;
  const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title, width: '100%' });
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    s.append(svg('text', { x: 0, y: y + 17 }, r.label));
    let x = left;
    r.parts.forEach((p) => {
      const w = scale(p.bytes);
      const rect = svg('rect', { x, y: y + 4, width: Math.max(w, 0), height: 18, fill: color(p.name) });
      rect.append(svg('title', {}, `${p.name}: ${GB(p.bytes)}`));
      s.append(rect);
      x += w;
    });
    const total = r.parts.reduce((a, p) => a + p.bytes, 0);
    let end = x;
    if (r.capacity) {
      const cx = left + scale(r.capacity);
      s.append(svg('line', { x1: cx, x2: cx, y1: y, y2: y + 26, stroke: '#000', 'stroke-width': 3 }));
      end = Math.max(end, cx + 2);
    }
    s.append(svg('text', { x: end + 6, y: y + 17, class: 'total' }, r.capacity ? `${GB(total)} of ${GB(r.capacity)}` : GB(total)));
  });
  lines.forEach((line, k) => {
    let lx = left;
    const ly = top + rows.length * rowH + 14 + k * 18;
    for (const n of line) {
      s.append(svg('rect', { x: lx, y: ly - 10, width: 12, height: 12, fill: color(n) }));
      s.append(svg('text', { x: lx + 16, y: ly }, n));
      lx += 24 + n.length * 7;
    }
  });
  return el('figure', {}, el('figcaption', { text: title }), s);
}
// Horizontal bars on a log axis with an optional band: rows [{label, value, low, high, text}].
function logBars(title, rows, unit) {
  const W = 720, left = 190, right = 110, rowH = 28, top = 10;
  const vals = rows.flatMap((r) => [r.value, r.low, r.high]).filter((v) => v > 0);
  if (!vals.length) return el('p', { text: `${title}: nothing to draw` });
  const lo = Math.floor(Math.log10(Math.min(...vals))), hi = Math.ceil(Math.log10(Math.max(...vals))) || lo + 1;
  const span = Math.max(hi - lo, 1);
  const X = (v) => left + ((Math.log10(v) - lo) / span) * (W - left - right);
  const s = svg('svg', { viewBox: `0 0 ${W} ${top + rows.length * rowH + 30}`, role: 'img', 'aria-label': `${title} (log scale)`, width: '100%' });
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    s.append(svg('text', { x: 0, y: y + 16 }, r.label));
    if (r.low > 0 && r.high > 0) s.append(svg('rect', { x: X(r.low), y: y + 2, width: Math.max(X(r.high) - X(r.low), 1), height: 20, fill: '#cfe0f5' }));
    if (r.value > 0) {
      // A job that cannot run there (does not fit) is drawn grey and says so in its text.
      s.append(svg('rect', { x: left, y: y + 7, width: Math.max(X(r.value) - left, 1), height: 10, fill: r.muted ? '#b8b8b8' : '#0b4f9c', 'data-muted': r.muted ? '1' : '0' }));
      s.append(svg('text', { x: X(Math.max(r.value, r.high || 0)) + 6, y: y + 16 }, r.text));
    }
  });
  for (let d = lo; d <= hi; d++) {
    const x = left + ((d - lo) / span) * (W - left - right);
    s.append(svg('line', { x1: x, x2: x, y1: top, y2: top + rows.length * rowH, stroke: '#ddd' }));
    s.append(svg('text', { x: x - 10, y: top + rows.length * rowH + 16, class: 'tick' }, unit === 'hours' ? tickHours(10 ** d) : `1e${d}`));
  }
  return el('figure', {}, el('figcaption', { text: `${title} (${unit}, log scale)` }), s);
}
// A time axis in the unit that reads best: 1 h, 10 h, 4.2 days, 6 weeks, 1.1 years.
function tickHours(h) {
  if (h >= 24 * 365) return `${+(h / (24 * 365)).toPrecision(2)} years`;
  if (h >= 24 * 7 * 3) return `${+(h / (24 * 7)).toPrecision(2)} weeks`;
  if (h >= 48) return `${+(h / 24).toPrecision(2)} days`;
  if (h >= 1) return `${+h.toPrecision(2)} h`;
  return `${+(h * 60).toPrecision(2)} min`;
}
// "8 × h100-sxm": the device count wherever a machine is named.
const machineLabel = (m) => `${m.devices > 1 ? `${m.devices} × ` : ''}${m.id}${m.dtype ? ` ${m.dtype}` : ''}`;
function table(headers, rows) {
  const t = el('table');
  t.append(el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', { scope: 'col', text: h })))));
  const tb = el('tbody');
  for (const r of rows) tb.append(el('tr', {}, ...r.map((c) => el('td', {}, c))));
  t.append(tb);
  return t;
}

// ---- views -----------------------------------------------------------------------------
function applyAdvice(changes) {
  busy(true);
  for (const [k, v] of Object.entries(changes)) state.values[k] = v;
  buildForm().then(run);
}
// The estimate's one verdict (machines[].verdict), in the words of the text output.
const VERDICT_WORDS = {
  fits: 'fits', fits_tightly: 'fits, tightly', does_not_fit: 'does not fit',
  states_fit_activations_not_counted: 'states fit (no activations)',
  no_network_between_nodes: 'no network',
};
const verdictClass = (v) => (v === 'does_not_fit' || v === 'no_network_between_nodes' ? 'nofit' : v === 'states_fit_activations_not_counted' ? 'unknown' : 'fits');
const render = {
  estimate(j) {
    const verdicts = $('verdicts'), charts = $('charts'), tables = $('tables');
    verdicts.replaceChildren();
    // After the charts, best first: what fits before what does not, then the fewest hours.
    const order = j.machines.map((m, i) => [m, i]).sort(([a], [b]) => (b.fits - a.fits) || (a.hours - b.hours));
    order.forEach(([m, i]) => {
      const p = el('p', { class: `verdict ${verdictClass(m.verdict)}`, 'data-machine': m.id });
      p.append(el('strong', { text: `${m.devices > 1 ? `${m.devices} × ` : ''}${m.name}: ` }), el('span', { 'data-key': `machines.${i}.summary`, text: m.summary }));
      for (const a of m.advice || []) {
        const b = el('button', { type: 'button', text: `Apply: ${a.summary}` });
        b.addEventListener('click', () => applyAdvice(a.changes));
        p.append(el('span', { class: 'advice' }, b));
      }
      verdicts.append(p);
    });
    const rowsMem = j.memory.rows || [];
    const names = rowsMem.map((r) => r.label);
    const bars = j.machines.map((m) => ({
      label: machineLabel(m),
      parts: rowsMem.map((r) => ({ name: r.label, bytes: r.bytes })),
      capacity: (m.memory && m.memory.usable_bytes) || m.memory_capacity_bytes,
    }));
    // The band: the model's own (its assumptions and its measured error on published runs,
    // time.band), else the published-MFU range around the peak hours.
    const band = (m) => (m.time && m.time.band ? [m.time.band.low_hours, m.time.band.high_hours] : [m.hours_at_peak / MFU_BAND[1], m.hours_at_peak / MFU_BAND[0]]);
    const hours = j.machines.map((m) => ({
      label: machineLabel(m), value: m.hours, low: band(m)[0], high: band(m)[1],
      text: m.fits ? hoursText(m.hours) : `${hoursText(m.hours)}, does not fit`, muted: !m.fits,
    }));
    charts.replaceChildren(
      stackedBars('Memory per device against what each machine lets it use', bars, names),
      logBars('Hours per machine; band: the model\'s assumptions and its measured error', hours, 'hours'));
    tables.replaceChildren(table(['Machine', 'Fits', 'Allocated peak', 'Reserved', 'Device total', 'Usable', 'Hours', 'Band', 'Cost'],
      j.machines.map((m, i) => [`${m.devices > 1 ? `${m.devices} × ` : ''}${m.name}`, VERDICT_WORDS[m.verdict] || m.verdict,
        // Online RL: the machine's own peak, with the engine's pool or the generation's cache.
        m.rollout ? num(`machines.${i}.memory.allocated_peak_bytes`, m.memory.allocated_peak_bytes, GB(m.memory.allocated_peak_bytes))
          : num('memory.allocated_peak_bytes', j.memory.allocated_peak_bytes, GB(j.memory.allocated_peak_bytes)),
        num(`machines.${i}.memory.reserved_peak_bytes`, m.memory.reserved_peak_bytes, GB(m.memory.reserved_peak_bytes)),
        num(`machines.${i}.memory.device_total_bytes`, m.memory.device_total_bytes, GB(m.memory.device_total_bytes)),
        num(`machines.${i}.memory.usable_bytes`, m.memory.usable_bytes, GB(m.memory.usable_bytes)),
        num(`machines.${i}.hours`, m.hours, hoursText(m.hours)),
        m.time && m.time.band ? `${hoursText(m.time.band.low_hours)} - ${hoursText(m.time.band.high_hours)}` : '-',
        // No cost for a job that does not fit: it would not run.
        m.cost_usd == null || !m.fits ? '-' : num(`machines.${i}.cost_usd`, m.cost_usd, `$${m.cost_usd.toFixed(0)}`)])));
    // Online RL (docs/rl.md): each machine's generation round and the peak of its two phases.
    const rl = j.machines.map((m, i) => [m, i]).filter(([m]) => m.rollout);
    if (rl.length) {
      const s = (i, k, v) => num(`machines.${i}.rollout.time.${k}`, v, `${v.toPrecision(3)} s`);
      tables.append(table(['Machine', 'Engine', 'Step (round)', 'Generation', 'Log-probs', 'Update', 'Sync',
        'Peak while generating', 'Peak while training'],
      rl.map(([m, i]) => [m.name, m.rollout.engine, s(i, 'round_seconds', m.rollout.time.round_seconds),
        s(i, 'generation_seconds', m.rollout.time.generation_seconds),
        s(i, 'logprob_seconds', m.rollout.time.logprob_seconds),
        s(i, 'update_seconds', m.rollout.time.update_seconds), s(i, 'sync_seconds', m.rollout.time.sync_seconds),
        GB(m.rollout.memory.phases[0].peak_bytes), GB(m.rollout.memory.phases[1].peak_bytes)])));
      // What fits with the rest as given: the longest completion, the most completions a micro-batch.
      const lim = (i, k, v, unit) => num(`machines.${i}.rollout.limits.${k}`, v, v > 0 ? `${v} ${unit}` : 'none');
      tables.append(table(['Machine', 'Longest completion that fits', 'Most completions a micro-batch'],
        rl.map(([m, i]) => [m.name, lim(i, 'max_completion_length', m.rollout.limits.max_completion_length, 'tokens'),
          lim(i, 'micro_batch', m.rollout.limits.micro_batch, 'completions')])));
      // PPO: the value model trained beside the policy and the frozen reward model.
      const ppo = rl.filter(([m]) => m.rollout.critics);
      if (ppo.length) {
        const c = (i, k, v) => num(`machines.${i}.rollout.critics.${k}`, v, GB(v));
        tables.append(table(['Machine', 'Value model states', 'Value activations', 'Reward model weights'],
          ppo.map(([m, i]) => [m.name, c(i, 'value_states_bytes', m.rollout.critics.value_states_bytes),
            c(i, 'value_activations_bytes', m.rollout.critics.value_activations_bytes),
            c(i, 'reward_weights_bytes', m.rollout.critics.reward_weights_bytes)])));
      }
    }
  },
  infer(j) {
    $('verdicts').replaceChildren(...j.machines.map((m, i) => el('p', { class: `verdict ${m.fits ? 'fits' : 'nofit'}`, 'data-machine': m.id },
      el('strong', { text: `${m.name}: ` }),
      document.createTextNode(m.fits ? 'fits; ' : 'does not fit; '),
      m.decode_tokens_per_s == null ? '' : num(`machines.${i}.decode_tokens_per_s`, m.decode_tokens_per_s, `${m.decode_tokens_per_s.toFixed(1)} tokens/s per sequence`),
      document.createTextNode(`, ${m.bound}-bound`))));
    const names = ['weights', 'KV cache', 'workspace', 'runtime'];
    const bars = j.machines.map((m) => ({ label: m.id, capacity: m.memory.usable_bytes, parts: [
      { name: 'weights', bytes: m.memory.weights_bytes }, { name: 'KV cache', bytes: m.memory.kv_bytes },
      { name: 'workspace', bytes: m.memory.workspace_bytes }, { name: 'runtime', bytes: m.memory.runtime_bytes }] }));
    const speed = j.machines.map((m) => ({ label: m.id, value: m.decode_tokens_per_s || 0, text: m.decode_tokens_per_s ? `${m.decode_tokens_per_s.toFixed(1)} tok/s` : '-' }));
    $('charts').replaceChildren(stackedBars('Memory per device', bars, names), logBars('Decode speed per sequence', speed, 'tokens/s'));
    $('tables').replaceChildren(table(['Machine', 'Fits', 'Max sequences', 'Max context', 'TTFT', 'Decode tok/s', 'Aggregate'],
      j.machines.map((m, i) => [m.name, m.fits ? 'yes' : 'no',
        num(`machines.${i}.max_concurrency`, m.max_concurrency, String(m.max_concurrency)),
        num(`machines.${i}.max_context`, m.max_context, String(m.max_context)),
        m.prefill_seconds == null ? '-' : num(`machines.${i}.prefill_seconds`, m.prefill_seconds, `${(m.prefill_seconds * 1e3).toFixed(1)} ms`),
        m.decode_tokens_per_s == null ? '-' : num(`machines.${i}.decode_tokens_per_s`, m.decode_tokens_per_s, m.decode_tokens_per_s.toFixed(1)),
        m.aggregate_tokens_per_s == null ? '-' : num(`machines.${i}.aggregate_tokens_per_s`, m.aggregate_tokens_per_s, m.aggregate_tokens_per_s.toFixed(0))])));
  },
  compare(j) {
    $('verdicts').replaceChildren(...j.tasks.map((t, i) => el('p', { class: `verdict ${t.winner ? 'fits' : 'nofit'}`, 'data-task': t.task },
      el('strong', { text: `${t.label}: ` }), el('span', { 'data-key': `tasks.${i}.winner`, 'data-value': t.winner || '', text: t.verdict }))));
    $('charts').replaceChildren(logBars('Training time per task and machine', j.tasks.filter((t) => t.task !== 'serve').flatMap((t) =>
      t.machines.filter((m) => m.hours).map((m) => ({ label: `${t.task} ${m.devices > 1 ? m.devices + ' x ' : ''}${m.id}`, value: m.hours, text: hoursText(m.hours) }))), 'hours'));
    $('tables').replaceChildren(table(['Task', 'Machine', 'Fits', 'Devices', 'Result'],
      j.tasks.flatMap((t, i) => t.machines.map((m, k) => [t.task, m.id, m.fits ? 'yes' : 'no', String(m.devices),
        m.hours != null ? num(`tasks.${i}.machines.${k}.hours`, m.hours, hoursText(m.hours))
          : m.decode_tokens_per_s != null ? num(`tasks.${i}.machines.${k}.decode_tokens_per_s`, m.decode_tokens_per_s, `${m.decode_tokens_per_s.toFixed(1)} tok/s`) : '-']))));
  },
  plan(j) {
    $('verdicts').replaceChildren(...(j.notes || []).map((n) => el('p', { class: 'verdict', text: n })));
    const c = j.candidates || [];
    $('charts').replaceChildren(logBars('Hours of the best layouts', c.map((x) => ({ label: `#${x.rank} ${x.devices} × ${x.machine}`, value: x.hours, text: hoursText(x.hours) })), 'hours'));
    // One row per layout family: its parallel degrees, ZeRO, micro-batch, recompute, memory,
    // MFU, time and cost, and a button that takes it to the Train tab.
    // Every knob of a row is shown, so that no two rows read alike: pp with its virtual stages,
    // the micro-batch with its accumulation, recompute with its layers, offload and hybrid
    // sharding, and the framework that runs it (docs/frameworks.md, "Who runs the layout").
    const layouts = table(['Rank', 'Machine', 'tp', 'pp', 'cp', 'ep', 'dp', 'ZeRO', 'Micro-batch', 'Recompute', 'Offload', 'Memory', 'MFU', 'Hours', 'Cost', 'Framework', ''],
      c.map((x, i) => {
        const p = x.parallel, m = x.machines[0];
        const b = el('button', { type: 'button', text: 'Use in Train' });
        b.addEventListener('click', () => { switchMode('estimate'); selectTab(); applyAdvice(x.apply); });
        const offload = [p.offload !== 'none' ? p.offload : '', p.offload_activations ? 'activations' : '', p.shard_group > 0 ? `hsdp ${p.shard_group}` : ''].filter(Boolean).join(', ') || 'none';
        return [String(x.rank), `${x.devices} × ${x.machine}`, String(p.tp), String(p.pp) + (p.virtual_stages > 1 ? ` × ${p.virtual_stages}v` : ''),
          String(p.cp), String(p.ep), String(p.dp),
          String(p.zero), `${p.micro_batch} × ${p.grad_accum}` + (x.global_batch != null ? ` = ${x.global_batch}` : ''),
          p.recompute + (p.recompute_layers != null ? ` (${p.recompute_layers} layers)` : '') + (p.overlap_tp ? ', tp overlap' : ''), offload,
          num(`candidates.${i}.machines.0.memory.allocated_peak_bytes`, m.memory.allocated_peak_bytes, GB(m.memory.allocated_peak_bytes)),
          num(`candidates.${i}.machines.0.time.mfu`, m.time.mfu, `${(m.time.mfu * 100).toFixed(1)} %`),
          num(`candidates.${i}.hours`, x.hours, hoursText(x.hours)),
          x.usd == null ? '-' : num(`candidates.${i}.usd`, x.usd, `$${Math.round(x.usd).toLocaleString('en-US')}`), x.framework || '-', b];
      }));
    layouts.id = 'plan-layouts';
    const parts = [layouts];
    const misses = j.near_misses || [];
    if (misses.length) {
      parts.push(el('h3', { text: 'Nearest misses' }), table(['Workload', 'tp', 'pp', 'dp', 'ZeRO', 'Micro-batch', 'Why not', 'Memory'],
        misses.map((x) => [x.workload, String(x.layout.tp), String(x.layout.pp), String(x.layout.dp), String(x.layout.zero),
          String(x.layout.micro_batch), x.reason.replaceAll('_', ' '), `${GB(x.memory_bytes)} of ${GB(x.limit_bytes != null ? x.limit_bytes : x.capacity_bytes)}`])));
    }
    $('tables').replaceChildren(...parts);
  },
};

// ---- start -----------------------------------------------------------------------------
// The URL's tab and inputs become the page's: that tab's own inputs, the others kept.
function fromHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const mode = Object.hasOwn(MAIN, p.get('mode') ?? '') ? p.get('mode') : 'estimate';
  state.mode = mode;
  state.values = state.byMode[mode] = {};
  for (const [k, v] of p) if (k !== 'mode' && k !== '__proto__') state.values[k] = v;
  state.hash = location.hash;
}
function selectTab() {
  for (const b of document.querySelectorAll('[role=tab]')) b.setAttribute('aria-selected', String(b.dataset.mode === state.mode));
}
async function start() {
  busy(true);
  fromHash();
  selectTab();
  for (const b of document.querySelectorAll('[role=tab]')) {
    b.addEventListener('click', () => { busy(true); switchMode(b.dataset.mode); selectTab(); buildForm().then(run); });
  }
  // A link pasted or edited, or the browser's back and forward: the page follows the URL.
  const follow = () => {
    if (location.hash === state.hash) return;
    busy(true);
    fromHash();
    selectTab();
    buildForm().then(run);
  };
  window.addEventListener('hashchange', follow);
  window.addEventListener('popstate', follow);
  const [models, hardware] = await Promise.all([fetch('/api/models').then((r) => r.json()), fetch('/api/hardware').then((r) => r.json())]);
  $('models-list').replaceChildren(...models.map((m) => el('option', { value: m.id, text: m.name })));
  // The machine picker searches ids and names, and says each device's memory.
  $('machines-list').replaceChildren(...hardware.map((d) => el('option', { value: d.id, text: `${d.name}, ${GB(d.memory_capacity_bytes)}` })));
  $('cli-link').addEventListener('click', (e) => { e.preventDefault(); navigator.clipboard?.writeText(cliLine()); });
  await buildForm();
  await run();
}
start();
