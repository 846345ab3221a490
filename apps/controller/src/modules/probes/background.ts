/** Work that outlives the request that started it (Form A dispatch); awaited on shutdown. */
export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  run(work: () => Promise<void>): void {
    const p: Promise<void> = work().finally(() => this.running.delete(p));
    this.running.add(p);
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves when everything started so far has finished. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
