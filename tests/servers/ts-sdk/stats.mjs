// Counts the JSON-RPC messages the test server receives, for GET /stats.
//
// Shape: {byMethod: {method: n}, tasksGetByTask: {taskId: n},
//         requests: [{t, method, taskId, id, via, session}]}
// `t` = ms since epoch; client responses (answers to elicitation/sampling) count as method "(response)";
// a GET that opens the listening stream counts as method "(get)".

export class Stats {
    constructor() {
        this.reset();
    }

    reset() {
        this.byMethod = {};
        this.tasksGetByTask = {};
        this.requests = [];
    }

    /** Records one received body: a message or a batch. */
    record(body, via, session) {
        const messages = Array.isArray(body) ? body : [body];
        for (const m of messages) {
            if (!m || typeof m !== 'object') continue;
            const method = typeof m.method === 'string' ? m.method : '(response)';
            const taskId = typeof m.params?.taskId === 'string' ? m.params.taskId : null;
            this.add({ t: Date.now(), method, taskId, id: m.id ?? null, via, session: session ?? null });
        }
    }

    recordGet(session) {
        this.add({ t: Date.now(), method: '(get)', taskId: null, id: null, via: 'get', session: session ?? null });
    }

    add(entry) {
        this.byMethod[entry.method] = (this.byMethod[entry.method] ?? 0) + 1;
        if (entry.method === 'tasks/get' && entry.taskId !== null) {
            this.tasksGetByTask[entry.taskId] = (this.tasksGetByTask[entry.taskId] ?? 0) + 1;
        }
        if (this.requests.length < 100_000) this.requests.push(entry);
    }

    snapshot() {
        return { byMethod: this.byMethod, tasksGetByTask: this.tasksGetByTask, requests: this.requests };
    }
}
