// What a command needs from the outside world: where to print, where it runs, its environment.
import { formatProgress, type OnProgress, type Progress } from '../progress.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** A status line drawn in place of the last one (a terminal); the next err() line replaces it. */
  status?(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Standard input as text, when a command reads it (review -, review --b4-check); the process's own by default. */
  stdin?: () => string;
}

export interface GlobalOptions {
  tree?: string;
  json: boolean;
  recipes: string[];
}

export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

let statusShown = false;

/** The process's own stderr writer: a live terminal view is drawn only when a command writes there. */
export const processErr = (t: string): void => {
  process.stderr.write(`${statusShown ? '\r\x1b[K' : ''}${t}\n`);
  statusShown = false;
};

/** On a terminal, one line of stderr redrawn in place. */
export const processStatus = (t: string): void => {
  process.stderr.write(`\r\x1b[K${t.slice(0, (process.stderr.columns || 80) - 1)}`);
  statusShown = t !== '';
};

/** A step shorter than this gets no line of its own (a warm build directory's `make prepare`, say). */
const QUIET_SECONDS = 10;
/** Off a terminal, a running step gets a line this often. */
const PLAIN_EVERY_MS = 30_000;

/**
 * How a command shows the progress of its long steps (kernel builds, boots): on a terminal, the status line, redrawn
 * every two seconds; elsewhere a plain line every 30 seconds; and for either, one line when a step of more than a few
 * seconds ends.
 */
export function progressReporter(io: Io, prefix = ''): OnProgress {
  const text = (p: Progress) => `${prefix}${formatProgress(p)}`;
  let lastAt = 0;
  let lastWhat = '';
  return (p) => {
    if (p.what !== lastWhat) [lastWhat, lastAt] = [p.what, 0];
    if (p.ended) {
      io.status?.('');
      if (p.seconds >= QUIET_SECONDS) io.err(text(p));
      return;
    }
    if (io.status) io.status(text(p));
    else if (p.seconds >= QUIET_SECONDS && Date.now() - lastAt >= PLAIN_EVERY_MS) {
      lastAt = Date.now();
      io.err(text(p));
    }
  };
}
