// simt's HTML run reports in a real browser (headless Chromium through playwright-core):
// what a student does with them, checked against the JSON trace of the same run.
//
// Run by tests/browser/run.sh, which builds nothing: SIMT names the simt binary,
// CHROMIUM the browser, REPORT_DIR a scratch folder.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(import.meta.dirname, "../..");
const simt = process.env.SIMT;
const out = process.env.REPORT_DIR;
let browser;

before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--no-sandbox"] });
});
after(async () => {
  await browser?.close();
});

function run(...args) {
  return execFileSync(simt, args, { cwd: root, encoding: "utf8", maxBuffer: 1 << 30 });
}

// The report of a kernel, and the JSON trace of the same launch to check it against.
function reportOf(name, kernel, ...flags) {
  const html = join(out, name + ".html"), json = join(out, name + ".json");
  run("run", kernel, ...flags, "--report", html);
  run("run", kernel, ...flags, "--trace", "--format", "json", "-o", json);
  return { html, trace: JSON.parse(readFileSync(json, "utf8")) };
}

// Opens a report, failing the test on any console error or uncaught exception.
async function open(html) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(html).href);
  await page.waitForFunction(() => window.simtReport !== undefined);
  return { page, errors };
}

async function hover(page, column, lane) {
  const p = await page.evaluate(([c, l]) => window.simtReport.cellPoint(c, l), [column, lane]);
  await page.mouse.move(p.x, p.y);
  await page.waitForSelector("#tooltip:not([hidden])");
  return page.$eval("#tooltip", (t) => ({ text: t.textContent, pc: Number(t.dataset.pc), issue: Number(t.dataset.issue) }));
}

for (const [name, kernel] of [["if_else", "asm/divergence/if_else.s"], ["nested", "asm/divergence/nested.s"], ["data_loop", "asm/divergence/data_loop.s"]]) {
  test(`${name}: columns, hover, line highlights and zoom match the trace`, async () => {
    const { html, trace } = reportOf(name, kernel);
    const { page, errors } = await open(html);
    // One column per issue.
    assert.equal(await page.evaluate(() => window.simtReport.columns()), trace.issues.length);
    // Hovering a cell names the pc of that issue, for a few columns across the timeline.
    const count = trace.issues.length;
    for (const column of [0, 1, Math.floor(count / 2), count - 1]) {
      const tip = await hover(page, column, 3);
      assert.equal(tip.pc, trace.issues[column].pc, `column ${column}`);
      assert.match(tip.text, new RegExp(`pc ${trace.issues[column].pc}, line ${trace.issues[column].line}`));
    }
    // Clicking source line N highlights exactly the issues of line N.
    const lines = [...new Set(trace.issues.map((i) => i.line))];
    for (const line of lines) {
      await page.click(`#source .line[data-line="${line}"]`);
      const highlighted = await page.evaluate(() => window.simtReport.highlighted());
      const expected = trace.issues.map((issue, k) => (issue.line === line ? k : -1)).filter((k) => k >= 0);
      assert.deepEqual(highlighted, expected, `line ${line}`);
      assert.equal(await page.$eval("#source .line.selected", (e) => Number(e.dataset.line)), line);
    }
    // Clicking a cell selects its source line.
    const target = Math.floor(count / 3);
    const p = await page.evaluate((c) => window.simtReport.cellPoint(c, 0), target);
    await page.mouse.click(p.x, p.y);
    assert.equal(await page.$eval("#source .line.selected", (e) => Number(e.dataset.line)), trace.issues[target].line);
    // Zoom: the buttons and Ctrl+wheel change the column width; hovering still finds the right issue.
    const before = await page.evaluate(() => window.simtReport.cellWidth());
    await page.click("#zoom-out");
    const smaller = await page.evaluate(() => window.simtReport.cellWidth());
    assert.ok(smaller < before, `zoom out: ${smaller} < ${before}`);
    await page.click("#zoom-in");
    await page.click("#zoom-in");
    assert.ok((await page.evaluate(() => window.simtReport.cellWidth())) > smaller);
    const q = await page.evaluate(() => window.simtReport.cellPoint(0, 0));
    await page.mouse.move(q.x, q.y);
    const wide = await page.evaluate(() => window.simtReport.cellWidth());
    await page.keyboard.down("Control");
    await page.mouse.wheel(0, 300);
    await page.keyboard.up("Control");
    await page.waitForFunction((w) => window.simtReport.cellWidth() < w, wide);
    const tip = await hover(page, count - 1, 0);
    assert.equal(tip.pc, trace.issues[count - 1].pc);
    // The legend and the axes are there.
    assert.match(await page.textContent("#legend"), /executed.*guarded off.*waiting.*exited.*split.*rejoin/s);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test("a warp's columns: selecting one warp shows only its issues, with register values", async () => {
  const { html, trace } = reportOf("data_loop_warps", "asm/divergence/data_loop.s");
  const { page, errors } = await open(html);
  await page.evaluate(() => window.simtReport.selectWarp(1));
  const mine = trace.issues.filter((i) => i.warp === 1);
  assert.equal(await page.evaluate(() => window.simtReport.columns()), mine.length);
  // data_loop.s: `IMUL R6, R6, 3` multiplies each lane's accumulator; hover lane 7 at its first one.
  const column = mine.findIndex((i) => i.opcode === "IMUL");
  const tip = await hover(page, column, 7);
  assert.match(tip.text, /^reads {2}R6 = 1$/m);
  assert.match(tip.text, /writes R6 = 3\b/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a timed run draws warp states, issue slots and occupancy", async () => {
  const html = join(out, "saxpy_timed.html");
  run("run", "asm/saxpy.s", "--timing", "h100", "--report", html);
  const { page, errors } = await open(html);
  assert.match(await page.textContent("#timing"), /Warps by state over cycles.*Each warp's state.*Issue slots.*Issue-slot use per SM partition/s);
  assert.match(await page.textContent("#occupancy"), /theoretical [\d.]+%.*achieved [\d.]+%/);
  assert.ok((await page.$$("#timing canvas")).length >= 4);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a million issues load and pan quickly", async () => {
  const html = join(out, "million.html");
  // 4096 blocks of saxpy: about a million warp instructions.
  run("run", "asm/saxpy.s", "--grid", "8192", "--block", "256", "--arg", "n=2097152", "--arg", "x=zeros(2097152)", "--arg", "y=zeros(2097152)", "--report", html);
  const { page, errors } = await open(html);
  const columns = await page.evaluate(() => window.simtReport.columns());
  assert.ok(columns >= 1000000, `${columns} columns`);
  const loadMs = await page.evaluate(() => window.simtReport.loadMs);
  console.log(`# a report of ${columns} issues drew in ${Math.round(loadMs)} ms`);
  assert.ok(loadMs < 5000, `drawn in ${loadMs} ms`);
  const started = Date.now();
  const tip = await hover(page, columns - 1, 0);
  assert.ok(Number.isFinite(tip.pc));
  await page.click("#zoom-fit");
  assert.ok(Date.now() - started < 3000);
  assert.deepEqual(errors, []);
  await page.close();
});

test("what the kernel printed is a table in print order", async () => {
  const html = join(out, "printed.html");
  run("run", "asm/divergence/printed.s", "--report", html);
  const { page, errors } = await open(html);
  const text = await page.textContent("#printed");
  assert.match(text, /Printed \(printf\), in print order/);
  assert.match(text, /block 0 thread {2}1: odd.*block 0 thread {2}0: even/s);
  assert.deepEqual(errors, []);
  await page.close();
});
