// Every failure a user can cause or meet has its own class with a stable code, an exit code and a hint.
// The CLI prints `kseries: <message>` and `hint: <hint>`; only a bug (anything else) shows a stack.

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;
export const EXIT_BUG = 3;

export class KseriesError extends Error {
  readonly code: string = 'EKSERIES';
  readonly exitCode: number = EXIT_USAGE;
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A command-line argument or `--set` parameter is wrong. */
export class UsageError extends KseriesError {
  override readonly code = 'EUSAGE';
}

/** A recipe does not exist or its manifest is malformed. */
export class RecipeError extends KseriesError {
  override readonly code = 'ERECIPE';
}

/** A template failed to compile or render (syntax, missing variable). */
export class TemplateError extends KseriesError {
  override readonly code = 'ETEMPLATE';
}

/** A declared recipe parameter got a value of the wrong type, or none. */
export class ParamError extends KseriesError {
  override readonly code = 'EPARAM';
}

/** A rendered edit does not apply to the tree (diff hunk, anchor, existing file, path outside the tree). */
export class ApplyError extends KseriesError {
  override readonly code = 'EAPPLY';
}

/** The code transform of a recipe refuses the input (e.g. a read it cannot turn into a branch). */
export class TransformError extends KseriesError {
  override readonly code = 'ETRANSFORM';
}

/** No usable kernel tree. */
export class TreeError extends KseriesError {
  override readonly code = 'ETREE';
}

/** A program kseries needs is missing. */
export class MissingToolError extends KseriesError {
  override readonly code = 'ETOOL';
}

/** A program ran and failed in a way the user must handle (not a finding). */
export class ToolFailedError extends KseriesError {
  override readonly code = 'ETOOLFAILED';
}

/** A file or directory kseries must write cannot be written. */
export class OutputError extends KseriesError {
  override readonly code = 'EOUTPUT';
}

/** The series or version asked for does not exist. */
export class SeriesError extends KseriesError {
  override readonly code = 'ESERIES';
}

/** Another kseries run holds the tree's lock. */
export class LockedError extends KseriesError {
  override readonly code = 'ELOCKED';
}

/** The series' last check failed, so emitting it is refused (exit 1: the run found problems). */
export class CheckFailedError extends KseriesError {
  override readonly code = 'ECHECKFAILED';
  override readonly exitCode = EXIT_FINDINGS;
}

/** A mailbox to review is missing, malformed, or holds no series kseries can identify. */
export class MailboxError extends KseriesError {
  override readonly code = 'EMAILBOX';
}

/** Building code someone else wrote without a sandbox, and without --trust. */
export class SandboxError extends KseriesError {
  override readonly code = 'ESANDBOX';
}

/** The change asked for changes nothing in this tree (a semantic patch that matches nothing): exit 1, a result. */
export class NoChangeError extends KseriesError {
  override readonly code = 'ENOCHANGE';
  override readonly exitCode = EXIT_FINDINGS;
}
