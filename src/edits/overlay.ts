// The tree as a series sees it while it is being planned: the base, plus the files earlier edits changed.

export type ReadBase = (file: string) => Promise<string | undefined>;

export interface FileChange {
  file: string;
  /** undefined: the file does not exist (before: it is new; after: it is deleted). */
  before: string | undefined;
  after: string | undefined;
}

export class FileOverlay {
  private readonly current = new Map<string, string | undefined>();
  private readonly original = new Map<string, string | undefined>();

  constructor(private readonly readBase: ReadBase) {}

  async read(file: string): Promise<string | undefined> {
    if (this.current.has(file)) return this.current.get(file);
    const text = await this.readBase(file);
    this.original.set(file, text);
    this.current.set(file, text);
    return text;
  }

  /** Record a change; reading first keeps the state before the first change of each file. */
  async write(file: string, text: string | undefined): Promise<void> {
    await this.read(file);
    this.current.set(file, text);
  }

  /** The files whose content differs from the start of this overlay, sorted by path. */
  changes(): FileChange[] {
    return [...this.current.keys()]
      .filter((f) => this.current.get(f) !== this.original.get(f))
      .sort()
      .map((file) => ({ file, before: this.original.get(file), after: this.current.get(file) }));
  }
}
