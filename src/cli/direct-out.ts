// The answers that need no command run (--version from the launcher, the root help from main())
// written straight to file descriptor 1 when it is a file, a pipe, a socket or a memory device
// (/dev/null, /dev/full): process.stdout would build a stream first, and with it Node's stream
// modules (about a tenth of `node -e 0` in instructions, issue 31), for one write. A terminal keeps
// the stream (the help's width comes from it), as does anything this cannot tell. The same bytes,
// the same exit codes as through the stream: a reader that went away (EPIPE) ends quietly with 0;
// any other write error is one line on stderr and exit 1.
// No import of a Node built-in at the top (see bin/bookdist): node:fs comes through
// process.getBuiltinModule when this runs.

/** Is fd 1 something other than a terminal: a regular file, a pipe, a socket, or a Linux memory device (major 1)? */
export function stdoutIsPlain(): boolean {
  try {
    const st = process.getBuiltinModule('node:fs').fstatSync(1);
    if (st.isFile() || st.isFIFO() || st.isSocket()) return true;
    // Major 1, minor below 256 (Linux's encoding): /dev/null, /dev/zero, /dev/full; never a terminal.
    return process.platform === 'linux' && st.isCharacterDevice() && st.rdev >= 256 && st.rdev < 512;
  } catch {
    return false;
  }
}

/** The line for a failed write to stdout: here and in the signal trap's pipe handler (signals.ts). */
export function cannotWrite(code: string | undefined): string {
  return `bookdist: cannot write the output (${code}); nothing more was written.\n`;
}

/**
 * Write `text` to stdout whole and give the exit code: straight to fd 1 when stdoutIsPlain() said
 * so (`direct`), else, and for what a full non-blocking pipe (EAGAIN) leaves, through process.stdout
 * with an error handler that exits as main()'s does (the code returned is then 0: the handler
 * exits with 1 itself should the write fail later).
 */
export function writeStdout(text: string, direct: boolean): number {
  let rest: string | Buffer = text;
  if (direct) {
    const fs = process.getBuiltinModule('node:fs');
    const bytes = Buffer.from(text, 'utf8');
    let done = 0;
    try {
      while (done < bytes.length) done += fs.writeSync(1, bytes, done, bytes.length - done);
      return 0;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return 0;
      if (code !== 'EAGAIN' && code !== 'EINTR') {
        try {
          fs.writeSync(2, cannotWrite(code ?? (e as Error).message));
        } catch {
          /* stderr is gone too: the exit code still says it */
        }
        return 1;
      }
      rest = bytes.subarray(done);
    }
  }
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e?.code !== 'EPIPE') process.stderr.write(cannotWrite(e?.code ?? e?.message));
    process.exit(e?.code === 'EPIPE' ? 0 : 1);
  });
  process.stdout.write(rest);
  return 0;
}
