// What a command needs from the outside world: where to print, where it runs, its environment.
export interface Io {
  out(text: string): void;
  err(text: string): void;
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

/** The process's own stderr writer: a live terminal view is drawn only when a command writes there. */
export const processErr = (t: string): void => {
  process.stderr.write(`${t}\n`);
};
