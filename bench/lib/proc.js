// Child processes of the bench: one-shot workers that print a JSON result, and servers that print
// `listening <port>` when ready. Every child is killed when the bench exits, however it exits.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

const live = new Set();
function reap() {
  for (const child of live) child.kill('SIGKILL');
}
process.on('exit', reap);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    reap();
    process.exit(130);
  });
}

export function track(child) {
  live.add(child);
  child.on('exit', () => live.delete(child));
  return child;
}

/** Run `node [nodeArgs] script args`, wait for it to exit, return {code, stdout, stderr, wallMs}. */
export async function runNode(script, args = [], { nodeArgs = [], env = {}, cwd, onStderr } = {}) {
  const started = performance.now();
  const child = track(
    spawn(process.execPath, [...nodeArgs, script, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
    onStderr?.(d);
  });
  const [code, signal] = await once(child, 'exit');
  return { code: code ?? signal, stdout, stderr, wallMs: performance.now() - started };
}

/** The last line of stdout that parses as a JSON object. */
export function lastJson(stdout) {
  const lines = stdout.trim().split('\n').reverse();
  for (const line of lines) {
    try {
      const v = JSON.parse(line);
      if (v && typeof v === 'object') return v;
    } catch {
      // not JSON: keep looking
    }
  }
  // Some commands print one pretty-printed JSON document.
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

/** Start a server child that prints `listening <port>`; returns {port, url, pid, stop()}. */
export async function startServer(script, args = [], { nodeArgs = [], env = {}, timeoutMs = 20_000 } = {}) {
  const child = track(
    spawn(process.execPath, [...nodeArgs, script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  const port = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${script} did not start within ${timeoutMs} ms`)), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d) => {
      buf += d;
      const m = /listening (\d+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before listening`));
    });
  });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
