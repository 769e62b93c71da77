// Exposure deduplication: one exposure per subject, flag, iteration and variant within a window
// (decision 0045). Bounded: past `capacity` entries the oldest are forgotten first (a forgotten
// subject is at worst exposed once more, which the analysis counts once anyway).

export class ExposureWindow {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    private readonly capacity = 50_000,
  ) {}

  /** True the first time `key` is seen within the window (and remembers it). */
  first(key: string, now: number): boolean {
    const until = this.seen.get(key);
    if (until !== undefined && until > now) return false;
    // Re-inserted so the map's order stays oldest first.
    this.seen.delete(key);
    this.seen.set(key, now + this.windowMs);
    if (this.seen.size > this.capacity) this.seen.delete(this.seen.keys().next().value as string);
    return true;
  }

  get size(): number {
    return this.seen.size;
  }
}
