// Small statistics helpers.
export function quantile(xs, q) {
  const a = xs.filter((x) => Number.isFinite(x)).sort((x, y) => x - y);
  if (a.length === 0) return NaN;
  const pos = (a.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return a[lo] + (a[hi] - a[lo]) * (pos - lo);
}
export const median = (xs) => quantile(xs, 0.5);
export const p95 = (xs) => quantile(xs, 0.95);

/**
 * Requests per task per server interval from a fast server's request log: the requests in [t0, t0 + N·P)
 * naming each of `ids`, plus those naming no task (e.g. tasks/list pages) spread over all of them, ÷ N.
 */
export function perTaskRates(log, ids, t0, P, N) {
  const windowMs = N * P;
  const inWin = log.filter((r) => r.t >= t0 && r.t < t0 + windowMs);
  const byMethod = {};
  const byTask = new Map(ids.map((id) => [id, 0]));
  let shared = 0;
  for (const r of inWin) {
    byMethod[r.method] = (byMethod[r.method] ?? 0) + 1;
    if (r.taskId && byTask.has(r.taskId)) byTask.set(r.taskId, byTask.get(r.taskId) + 1);
    else shared++;
  }
  return { perTask: [...byTask.values()].map((n) => (n + shared / ids.length) / N), requests: inWin.length, byMethod };
}
