// Starts `trainbudget serve --port 0` and reads the port it prints; the tests' one server.
import { spawn } from 'node:child_process';

export async function startServer(bin, extraArgs = []) {
  const env = { ...process.env };
  const child = spawn(bin, ['serve', '--port', '0', ...extraArgs], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no port in: ${text}`)), 20000);
    child.stderr.on('data', (d) => {
      text += d;
      const m = text.match(/serving http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`serve exited ${code}: ${text}`)); });
  });
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    env,
    child,
    stop: () => child.kill('SIGTERM'),
  };
}
