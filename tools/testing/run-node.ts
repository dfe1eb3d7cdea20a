/**
 * Runs Node (`process.execPath`) as a child process and collects what it printed. Asynchronous on
 * purpose: a test's servers (stand-ins, proxies) live in the test process and must keep answering.
 */
import { spawn } from 'node:child_process';

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
  readonly signal?: NodeJS.Signals;
  /** When given, the run's stdout and stderr are pushed here (to check later that no secret was printed). */
  readonly outputs?: string[];
}

/** `node ...args` with stdin ignored; resolves on 'close', rejects if the spawn fails. */
export function runNode(args: readonly string[], options: NodeRunOptions = {}): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill(options.signal ?? 'SIGKILL'), options.killAfterMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      options.outputs?.push(stdout, stderr);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
