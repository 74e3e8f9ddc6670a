// Messages this page sent and whose answer it waits for, by seq: a reject
// refuses one, an ack covers it (a reject comes before the ack that covers
// it). Shared by the reset and claim trackers (resets.js, claims.js). Pure.

export class PendingRequests {
  constructor() {
    this.pending = new Map();
  }

  /** Waits for the answer to `seq` (null: nothing was sent). */
  track(seq, request) {
    if (seq != null) this.pending.set(seq, request);
  }

  /** A reject: the request it refuses (with its seq), or null when it is not one of ours. */
  rejected(msg) {
    const request = msg?.seq != null ? this.pending.get(msg.seq) : undefined;
    if (!request) return null;
    this.pending.delete(msg.seq);
    return { ...request, seq: msg.seq };
  }

  /**
   * The requests `ack` covers on connection `client` (done: not refused).
   * Requests sent on a connection since lost are dropped: nobody can tell
   * whether they were applied.
   */
  acked(ack, client) {
    const done = [];
    for (const [seq, request] of this.pending) {
      if (request.client !== client) {
        this.pending.delete(seq);
      } else if (seq <= ack) {
        this.pending.delete(seq);
        done.push({ ...request, seq });
      }
    }
    return done;
  }
}
