// SQLite only: the counter behind commit sequences (commit-sequence.ts), one row.
export interface CommitSequenceTable {
  id: number;
  /** The last sequence handed out. */
  value: number;
}
