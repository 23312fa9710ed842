import type { Trajectory } from '../trajectory/types.js';

/** Where a record was read: file and line. */
export interface Loc {
  file: string;
  line: number;
}

/** A record `hsa init` read, with where. */
export interface Seen {
  rec: Trajectory;
  at: Loc;
}
