// The page's layout at a desktop width (1,280 px) and a phone's (390 px): on every tab, with a
// job typed in, nothing runs past the window (a wide table scrolls inside its own card), every
// input and select shows its whole value, every button's label fits it, and chart labels stay
// readable (10 px high or more). Screenshots of each tab at each width go to OUT_DIR.
//   node layout.mjs TRAINBUDGET_BINARY OUT_DIR
import assert from 'node:assert/strict';
import { runInBrowser } from './browser.mjs';

const [bin, outDir] = process.argv.slice(2);

// What overflows, as the browser lays the page out: a list of "what: why" lines, empty when
// the page fits.
function overflows() {
  const found = [];
  const name = (e) => e.id ? `#${e.id}` : `${e.tagName.toLowerCase()}${e.className ? '.' + String(e.className).split(' ')[0] : ''}`;
  const visible = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
  const scroller = (e) => {
    for (let p = e.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return p;
    }
    return null;
  };
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width) found.push(`page: ${document.documentElement.scrollWidth} px wide in a ${width} px window`);
  for (const e of document.querySelectorAll('body *')) {
    if (!visible(e) || e.closest('svg') && e.tagName.toLowerCase() !== 'svg') continue;
    const r = e.getBoundingClientRect();
    const box = scroller(e);
    if (box) {
      const b = box.getBoundingClientRect();
      if (b.right > width + 0.5) found.push(`${name(box)}: its right edge at ${Math.round(b.right)} px in a ${width} px window`);
    } else if (r.right > width + 0.5) {
      found.push(`${name(e)}: its right edge at ${Math.round(r.right)} px in a ${width} px window`);
    }
  }
  // Values cut: a text input's value wider than its box; a select's chosen option wider than its
  // box less the arrow; a button whose label (wrapped) runs past it.
  const ctx = document.createElement('canvas').getContext('2d');
  const textWidth = (e, text) => { const s = getComputedStyle(e); ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`; return ctx.measureText(text).width; };
  for (const e of document.querySelectorAll('button')) {
    if (visible(e) && e.scrollWidth > e.clientWidth + 1) found.push(`${name(e)}: "${e.textContent}" runs past its button`);
  }
  for (const e of document.querySelectorAll('input:not([type=checkbox]), select')) {
    if (!visible(e)) continue;
    const s = getComputedStyle(e);
    const inner = e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    const tag = e.tagName.toLowerCase();
    const text = tag === 'select' ? (e.selectedOptions[0]?.textContent ?? '') : (e.value || e.placeholder);
    const need = textWidth(e, text) + (tag === 'select' ? 20 : 0);
    if (need > inner + 1) found.push(`${name(e)}: "${text}" needs ${Math.round(need)} px, has ${Math.round(inner)}`);
  }
  // Chart labels drawn at a readable size (a chart scrolls in its figure rather than shrink).
  for (const t of document.querySelectorAll('#charts svg text')) {
    const h = t.getBoundingClientRect().height;
    if (h > 0 && h < 10) found.push(`chart label "${t.textContent}": ${h.toFixed(1)} px high`);
  }
  return [...new Set(found)];
}

await runInBrowser(bin, async ({ server, browser }) => {
  const jobs = {
    estimate: 'mode=estimate&model=llama-3.1-70b&method=qlora&machine=h100-sxm,rtx-4090,m3-ultra&micro_batch=4',
    infer: 'mode=infer&model=llama-3.1-70b&machine=h100-sxm,rtx-4090&context=8192',
    compare: 'mode=compare&model=llama-3.1-70b&machine=h100-sxm,m3-ultra',
    plan: 'mode=plan&model=llama-3.1-8b&machine=h100-sxm&devices=8',
  };
  for (const [w, h] of [[1280, 900], [390, 844]]) {
    const page = await browser.newPage({ viewport: { width: w, height: h } });
    for (const [mode, hash] of Object.entries(jobs)) {
      await page.goto(`${server.base}/#${hash}`);
      await page.waitForTimeout(50);
      await page.waitForSelector('body[data-busy="0"]', { timeout: 30000 });
      assert.equal(await page.getAttribute(`#tab-${mode}`, 'aria-selected'), 'true', `${mode} tab open`);
      await page.evaluate(() => { document.querySelector('#more').open = true; });  // More fields shown
      const found = await page.evaluate(overflows);
      assert.deepEqual(found, [], `${mode} at ${w} px`);
      await page.screenshot({ path: `${outDir}/layout-${mode}-${w}.png`, fullPage: true });
    }
    await page.close();
  }
  console.log('layout: ok (estimate, infer, compare, plan at 1280 and 390 px); screenshots in', outDir);
});
