// Minimal in-memory EventStore (the SDK's resumability interface) so SSE events carry ids and
// a stream can be resumed with GET + Last-Event-ID. Enabled by --event-store.

export class MemoryEventStore {
    constructor() {
        this.events = []; // [{eventId, streamId, message}]
        this.seq = 0;
    }

    async storeEvent(streamId, message) {
        const eventId = `${streamId}.${++this.seq}`;
        this.events.push({ eventId, streamId, message });
        return eventId;
    }

    async getStreamIdForEventId(eventId) {
        return this.events.find(e => e.eventId === eventId)?.streamId;
    }

    async replayEventsAfter(lastEventId, { send }) {
        const at = this.events.findIndex(e => e.eventId === lastEventId);
        if (at < 0) return '';
        const { streamId } = this.events[at];
        for (const e of this.events.slice(at + 1)) {
            if (e.streamId === streamId) await send(e.eventId, e.message);
        }
        return streamId;
    }
}
