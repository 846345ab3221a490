/** Per node: allows one event per interval (log lines, notices), so a broken agent cannot flood anything. */
export class PerNodeLimit {
  private readonly last = new Map<string, number>();
  constructor(private readonly intervalMs: number) {}
  allow(nodeId: string, now = performance.now()): boolean {
    const last = this.last.get(nodeId);
    if (last !== undefined && now - last < this.intervalMs) return false;
    this.last.set(nodeId, now);
    return true;
  }
  forget(nodeId: string): void {
    this.last.delete(nodeId);
  }
  /** Drops entries whose interval has passed (they would allow anyway), so the map stays small. */
  prune(now = performance.now()): void {
    for (const [id, at] of this.last) if (now - at >= this.intervalMs) this.last.delete(id);
  }
}
