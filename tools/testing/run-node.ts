/**
 * Runs Node (`process.execPath`, or QCA_TEST_RUNTIME_NODE for the runtime's scripts: see nodeFor)
 * as a child process and collects what it printed. Asynchronous on purpose: a test's servers
 * (stand-ins, proxies) live in the test process and must keep answering.
 *
 * A child never outlives its test file: it is killed (SIGKILL) after `deadlineMs` (default 10
 * minutes) and, inside jest, at the end of the test file that started it (a root-level afterAll
 * registered when the file imports this module), so a run left behind by a jest timeout does not
 * go on into later files.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { killAtDeadline } from './file-end';

export interface NodeRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface NodeRunOptions {
  /** The child's whole environment (default: process.env); nothing is added to it. */
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Send `signal` (default SIGKILL) this many ms after the spawn. */
  readonly killAfterMs?: number;
  /** Send `signal` (default SIGKILL) when this promise resolves, if the child still runs. */
  readonly signalWhen?: Promise<unknown>;
  readonly signal?: NodeJS.Signals;
  /**
   * A bound, not a measurement: SIGKILL this many ms after the spawn (default 10 minutes), so a
   * hung child cannot outlive its test. A run ended so shows `signal: 'SIGKILL'`.
   */
  readonly deadlineMs?: number;
  /** When given, the run's stdout and stderr are pushed here (to check later that no secret was printed). */
  readonly outputs?: string[];
  /** Close the read end of the child's stdout at once, as a reader that went away would (`| head -1`); stdout is then ''. */
  readonly closeStdout?: boolean;
}

/** The default of {@link NodeRunOptions.deadlineMs}. */
const DEFAULT_DEADLINE_MS = 10 * 60_000;

/** The runtime that ships in a stack (the checker, the writer). */
const ASSETS = path.join(__dirname, '..', '..', 'assets') + path.sep;

/**
 * The Node that runs `args`: QCA_TEST_RUNTIME_NODE when it is set and args[0] is a script of the
 * runtime (under assets/), so that scripts/runtime-node-versions.sh runs the runtime's suites on
 * each Node a deploy may use; otherwise this process's Node.
 */
function nodeFor(args: readonly string[]): string {
  const other = process.env.QCA_TEST_RUNTIME_NODE;
  const script = args.length > 0 ? path.resolve(args[0]) : '';
  const isRuntime = script.startsWith(ASSETS) || [...runtimeCopies].some((dir) => script.startsWith(dir));
  return other && isRuntime ? other : process.execPath;
}

/** Copies of the runtime made by tests (as a stack holds one): their scripts run as the runtime's. */
const runtimeCopies = new Set<string>();

/**
 * Copies assets/ (the runtime) to `<dir>/assets`, as cdktf copies it into a stack, and returns the
 * copy's path; its scripts then run on QCA_TEST_RUNTIME_NODE too (see nodeFor).
 */
export function copyRuntime(dir: string): string {
  const copy = path.join(dir, 'assets');
  fs.cpSync(ASSETS, copy, { recursive: true });
  runtimeCopies.add(copy + path.sep);
  return copy;
}

/** `node ...args` with stdin ignored; resolves on 'close', rejects if the spawn fails. */
export function runNode(args: readonly string[], options: NodeRunOptions = {}): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(nodeFor(args), args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ended = killAtDeadline(child, options.deadlineMs ?? DEFAULT_DEADLINE_MS);
    let stdout = '';
    let stderr = '';
    let closed = false;
    const send = () => {
      if (!closed) child.kill(options.signal ?? 'SIGKILL');
    };
    const timer = options.killAfterMs === undefined ? undefined : setTimeout(send, options.killAfterMs);
    options.signalWhen?.then(send, () => undefined);
    const done = () => {
      closed = true;
      ended();
      if (timer) clearTimeout(timer);
    };
    if (options.closeStdout) child.stdout.destroy();
    else child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', (e) => {
      done();
      reject(e);
    });
    child.on('close', (code, signal) => {
      done();
      options.outputs?.push(stdout, stderr);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
