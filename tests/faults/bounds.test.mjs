// The fault matrix's request-bound check on hand-made proxy records: what the client did (the page's
// record of its own polls) decides when the browser, not the client, kept a request open or late.
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkBounds } from "./matrix.mjs";

const TASK = "task-1";
const get = (t, id, extra = {}) => ({ t, id, fault: null, status: 200, session: null, socket: id, ...extra });

/** Proxy stats for one task whose first (stalled) poll was still open when the second came. */
function overlapStats({ closedAt = 9700 } = {}) {
  const first = get(2000, 7, { fault: "stall", headAt: 2010, closedAt });
  const second = get(5200, 9, { closedAt: 5230 });
  return {
    startedAt: 0, now: 20_000, timeline: [], retryAfter: [], byMethod: { "tasks/get": 2 },
    tasks: { [TASK]: { gets: [first, second], maxInflight: 2, overlaps: [{ t: 5200, open: [first], next: second }], reqs: [] } },
  };
}
const check = (stats, polls) => checkBounds(stats, { n: 1, polls, timeoutMs: 2500 });
const violations = (out) => out.filter((x) => !x.startsWith("(note)"));

test("two polls open at the proxy without the page's record: a violation", () => {
  const out = check(overlapStats(), null);
  assert.equal(violations(out).length, 1);
  assert.match(out[0], /2 tasks\/get in flight at once .*head 2010, closed 9700/);
});

test("the client aborted the first poll before sending the second: the drained connection is a note", () => {
  const polls = { [`${TASK}#7`]: { calledAt: 1990, abortedAt: 4500 }, [`${TASK}#9`]: { calledAt: 5190 } };
  const out = check(overlapStats(), polls);
  assert.deepEqual(violations(out), []);
  assert.match(out[0], /^\(note\) .*aborted 690 ms before its next poll/);
});

test("the second poll left the client before the first was aborted: a violation", () => {
  const polls = { [`${TASK}#7`]: { calledAt: 1990, abortedAt: 5195 }, [`${TASK}#9`]: { calledAt: 5190 } };
  assert.equal(violations(check(overlapStats(), polls)).length, 1);
});

test("an aborted poll open past the browser's drain time is a violation", () => {
  const polls = { [`${TASK}#7`]: { calledAt: 1990, abortedAt: 4500 }, [`${TASK}#9`]: { calledAt: 5190 } };
  assert.equal(violations(check(overlapStats({ closedAt: 12_000 }), polls)).length, 1);
});

test("a gap the browser compressed is judged by the client's own fetch calls", () => {
  const stats = overlapStats();
  const t = stats.tasks[TASK];
  t.overlaps = [];
  t.gets = [get(2000, 7, { fault: "stall", closedAt: 2030 }), get(2300, 9, { closedAt: 2330 })];
  const queued = { [`${TASK}#7`]: { calledAt: 0, abortedAt: 2010 }, [`${TASK}#9`]: { calledAt: 2290 } };
  assert.deepEqual(violations(check(stats, queued)), []);
  const hurried = { [`${TASK}#7`]: { calledAt: 1990, abortedAt: 2010 }, [`${TASK}#9`]: { calledAt: 2290 } };
  assert.match(violations(check(stats, hurried))[0], /tasks\/get 300 ms after the previous one/);
  assert.match(violations(check(stats, null))[0], /tasks\/get 300 ms after the previous one/);
});
