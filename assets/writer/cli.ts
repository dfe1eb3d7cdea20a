#!/usr/bin/env node
/**
 * The writer's command line, run by Terraform's local-exec (see USAGE); entries come only from the
 * environment (input.ts). Output: one line of counts, never values. Exit codes: 0 done, 1 failed
 * (file unchanged), 2 usage error; 143 / 130 on SIGTERM / SIGINT (temp file and lock removed first).
 */
import { apply, FileCommand, removeDropped } from './commands';
import { fileList, readEntries, secretsOf } from './input';
import { cleanupForExit } from './lock';
import { EXTRA_ARGUMENT, optionsHelp, parseArgs, withDefaults } from '../runtime/args';
import { RunIo, runCli } from '../runtime/cli';
import { RUN, RuntimeError } from '../runtime/errors';
import { isOwner, OWNER_RULE } from '../runtime/names';
import { DROPPED_OPTIONS, FILE_OPTIONS, WRITER_ENV } from '../runtime/protocol';
import { showable, stripControl } from '../runtime/text';

const PROG = 'qdrant-cluster-access-writer';

export const USAGE = `Usage: ${PROG} write|remove --file PATH [--format dotenv|json] --owner NAME
       ${PROG} remove-dropped --owner NAME

Entries come from the environment, never the command line: ${WRITER_ENV.entries} holds a JSON object
of NAME: value (for remove, a JSON array of names is accepted too), and ${WRITER_ENV.entriesFromEnv}
a JSON object of NAME: ENV_VAR naming the variable that holds a value (a key).

write sets the owner's entries in the file to exactly these (names it wrote before and no longer
gets are removed); remove takes out every entry the file records for the owner, and the names given.
remove-dropped does what remove does for each file of ${WRITER_ENV.files} (a JSON array of
{"file","format","target"}: the files the owner wrote to, and the targets that wrote them) that
${WRITER_ENV.keepFiles} (the same shape: the files it still writes to) does not list, except a file
whose target ${WRITER_ENV.keepFiles} still lists: that target's own removal step cleans it.

Options:
${optionsHelp(FILE_OPTIONS)}
`;

type CommandLine = { help: true } | (FileCommand & { help?: undefined; deployCommand: string }) | { help?: undefined; command: 'remove-dropped'; owner: string };

/** The command and options of argv (without `node cli.js`). Throws a usage error (exit 2). */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h') return { help: true };
  if (command !== 'write' && command !== 'remove' && command !== 'remove-dropped') {
    throw new RuntimeError(`expected the command write, remove or remove-dropped; got ${showable(command === undefined ? '' : command) ?? 'an argument (not shown: it may be a key)'}`);
  }
  const spec = command === 'remove-dropped' ? DROPPED_OPTIONS : FILE_OPTIONS;
  const { values, positionals } = parseArgs(spec, rest);
  if (values.help) return { help: true };
  if (positionals.length > 0) throw new RuntimeError(EXTRA_ARGUMENT);
  const o = withDefaults(spec, values) as { file?: string; format: FileCommand['format']; owner?: string; deployCommand: string };
  if (command === 'remove-dropped') {
    if (o.owner === undefined || o.owner === '') throw new RuntimeError('--owner is required: the construct path of the ClusterAccess that owns the entries');
  } else {
    if (o.file === undefined) throw new RuntimeError('--file is required');
    if (o.file === '') throw new RuntimeError('--file is empty; give the path of the .env or JSON file');
    if (o.owner === undefined) throw new RuntimeError('--owner is required');
    if (o.owner === '') throw new RuntimeError('--owner is empty; give the construct path of the ClusterAccess that owns the entries');
  }
  if (!isOwner(o.owner)) throw new RuntimeError(`--owner ${showable(o.owner) ?? '(not shown: it may be a key)'} is not valid: ${OWNER_RULE}`);
  if (command === 'remove-dropped') return { command, owner: o.owner };
  return { command, file: o.file as string, format: o.format, owner: o.owner, deployCommand: o.deployCommand };
}

/** Does the work of one run against `io`; returns the exit code (run() and the process entry wrap it). */
export async function main(io: RunIo): Promise<number> {
  // No value may ever reach the output: register every value as a secret before anything runs
  // (the command line included: a key pasted into it must not come back in a usage error).
  for (const v of secretsOf(io.env)) io.addSecret(v);
  const parsed = parseCommandLine(io.argv);
  if (parsed.help) {
    io.stdout(USAGE);
    return 0;
  }
  const warnings: string[] = [];
  const warn = (m: string) => { warnings.push(m); };
  const flush = () => { for (const w of warnings) io.stderr(`${stripControl(w)}\n`); };
  if (parsed.command === 'remove-dropped') {
    try {
      const keep = fileList(io.env, WRITER_ENV.keepFiles);
      const lines = await removeDropped(parsed.owner, fileList(io.env, WRITER_ENV.files), keep, { warn });
      io.stdout(`${lines.map(stripControl).join('\n')}\n`);
      return 0;
    } finally {
      flush();
    }
  }
  let entries;
  try {
    entries = readEntries(io.env, parsed.command, parsed.deployCommand);
  } catch (err) {
    if (err instanceof RuntimeError && err.code === RUN) throw new RuntimeError(`${err.message}; ${parsed.file} was not changed`, RUN);
    throw err;
  }
  // How long to wait for another writer's lock (default 15000 ms, file.ts).
  const lockMs = Number(io.env.QCA_LOCK_TIMEOUT_MS);
  let line;
  try {
    line = await apply(parsed, entries, { warn, ...(Number.isFinite(lockMs) && lockMs > 0 ? { lockTimeoutMs: lockMs } : {}) });
  } finally {
    flush();
  }
  io.stdout(`${stripControl(line)}\n`);
  return 0;
}

/** Runs the CLI in memory; resolves to { code, stdout, stderr } (for tests). */
export async function run(argv: string[], env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(PROG, main, { argv, env, stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; } });
  cleanupForExit();
  return { code, stdout: stdout.replace(/\n$/, ''), stderr: stderr.replace(/\n$/, '') };
}

if (require.main === module) {
  for (const [signal, code] of Object.entries({ SIGTERM: 143, SIGINT: 130 })) {
    process.once(signal, () => {
      cleanupForExit();
      process.stderr.write(`${PROG}: error: stopped by ${signal}; the file keeps its previous or its new content, never a mix; run the command again\n`);
      process.exit(code);
    });
  }
  void runCli(PROG, main).then(() => cleanupForExit());
}
