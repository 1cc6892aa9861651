// Clear failures: `npm test` on a contract that does not bundle stops in the global setup, saying so at the
// file and line; the mock's stale-bundle warning names the command that writes generated/;
// `npm run mock` and `npm run sandbox` leave no process behind on SIGTERM or SIGINT (sent to npm
// alone, as a process manager or an IDE's stop button does); the example webhook receiver binds
// HOST and calls PAYMENT_API_BASE_URL; a sandbox writes its CLI config where --cli-config says.
// Every process runs in a process group of its own and is killed by pid or group, never by name.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../../generator/support/paths.js';
import { freePort, type ProcessGroup, startProcessGroup } from '../../tooling/process/server-process.js';
import { startExampleReceiver } from '../support/example-receiver.js';
import { reply, startFakeApi } from '../support/fake-api.js';
import rootSetup from '../support/global-setup.js';
import { runSandboxCommand, startSandboxProcess } from '../support/sandbox-process.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A copy of openapi/ with `change` applied to one schema file; returns the root and the file. */
async function contractCopy(change: (text: string) => string): Promise<{ root: string; file: string; text: string }> {
  const dir = await tempDir('contract-copy-');
  await cp(join(REPO_ROOT, 'openapi'), join(dir, 'openapi'), { recursive: true });
  const file = join(dir, 'openapi', 'components', 'schemas', 'Amount.yaml');
  const text = change(await readFile(file, 'utf8'));
  await writeFile(file, text);
  return { root: join(dir, 'openapi', 'openapi.yaml'), file, text };
}

const answers = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  detail: () => string = () => '',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms${detail() ? `:\n${detail()}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every descendant of `pid`, read from /proc/<pid>/task/<tid>/children. */
function descendants(pid: number): number[] {
  const found: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return found;
  }
  for (const task of tasks) {
    let children = '';
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const child of children.split(/\s+/).filter(Boolean).map(Number)) found.push(child, ...descendants(child));
  }
  return found;
}

/** Running (a zombie, exited but not yet reaped, counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
/** Prism leads a group of its own: whatever survived a failed check goes, by pid. */
function killAll(pids: number[]): void {
  for (const p of pids.filter(alive)) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}
const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '(gone)';
  }
};

describe('npm test on a contract that does not bundle', () => {
  it("stops the run before any test, saying so at the file and line with lint's message", async () => {
    const { root, file, text } = await contractCopy((t) =>
      t.replace('required: [value, currency]', 'required: [value, currency'),
    );
    const line = text.split('\n').findIndex((l) => l.includes('required: [value, currency')) + 1;
    // The root's global setup (test/support/global-setup.ts) runs before vitest collects a test file.
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`exit ${code}`);
    });
    vi.stubEnv('PAYMENT_API_ROOT', root);
    try {
      await expect(
        rootSetup({ provide: () => expect.unreachable('the bundle was provided') } as never),
      ).rejects.toThrow('exit 1');
    } finally {
      vi.restoreAllMocks();
      vi.unstubAllEnvs();
    }
    expect(exit).toHaveBeenCalledWith(1);
    const [first, ...rest] = written.join('').split('\n');
    expect(first).toMatch(/^The contract does not bundle: /);
    expect(first).toContain(`${relative(REPO_ROOT, file)}:${line}:`);
    expect(first).toMatch(/ error yaml-syntax a '\[' opened on line \d+ is never closed/);
    expect(first).toMatch(/fix it, then npm run generate$/);
    expect(rest.at(-2)).toBe('(npm run lint lists every problem; no test ran)');
  }, 60_000);
});

/** `npm <args>` in a process group of its own, until the port answers. */
async function startNpm(args: string[], port: number, env: Record<string, string> = {}): Promise<ProcessGroup> {
  const npm = startProcessGroup('npm', args, { cwd: REPO_ROOT, env, name: `npm ${args.join(' ')}` });
  try {
    await until(
      `answer on port ${port}`,
      async () => {
        if (npm.hasExited()) throw new Error(`npm ${args.join(' ')} exited before listening:\n${npm.output()}`);
        return answers(port);
      },
      90_000,
      npm.output,
    );
  } catch (err) {
    await npm.stop();
    throw err;
  }
  return npm;
}

describe('npm run mock and npm run sandbox stop what they started', () => {
  it.each([
    ['mock', 'SIGTERM'],
    ['sandbox', 'SIGTERM'],
    ['mock', 'SIGINT'],
  ] as const)(
    'npm run %s on %s to npm alone: the port is free and every process it started is gone',
    async (script, signal) => {
      const port = await freePort();
      const args =
        script === 'mock'
          ? ['run', 'mock', '--', '--port', String(port)]
          : ['run', 'sandbox', '--', '--port', String(port), '--db', ':memory:', '--cli-config', 'none'];
      const npm = await startNpm(args, port);
      const pids = [npm.pid, ...descendants(npm.pid)];
      try {
        expect(pids.length, 'npm started the command as a child').toBeGreaterThan(1);
        process.kill(npm.pid, signal);
        await until(
          `end of npm run ${script} after ${signal}`,
          async () => !(await answers(port)) && pids.every((p) => !alive(p)),
          8_000,
          () =>
            `still running:\n${pids
              .filter(alive)
              .map((p) => `  ${p} ${commandLine(p)}`)
              .join('\n')}`,
        );
      } finally {
        await npm.stop();
        killAll(pids);
      }
    },
    120_000,
  );

  it('the mock warns about a stale bundle with the command that regenerates it: npm run generate', async () => {
    const { root } = await contractCopy((t) =>
      t.replace('Total tax amount.', 'Total tax amount (changed since the bundle).'),
    );
    const port = await freePort();
    const npm = await startNpm(['run', 'mock', '--', '--port', String(port), '--quiet'], port, {
      PAYMENT_API_ROOT: root,
    });
    const pids = descendants(npm.pid);
    try {
      await until(
        'the stale-bundle warning',
        () => /warning: .*is not the bundle of/.test(npm.output()),
        60_000,
        npm.output,
      );
      const warning = npm
        .output()
        .split('\n')
        .find((l) => /is not the bundle of/.test(l))!;
      expect(warning).toContain('run `npm run generate` and restart');
      expect(npm.output()).not.toContain('npm run bundle');
    } finally {
      await npm.stop();
      killAll(pids);
    }
  }, 120_000);
});

describe('examples/webhook-server.ts', () => {
  it('listens on HOST only and calls the API at PAYMENT_API_BASE_URL', async () => {
    const api = await startFakeApi((request) =>
      reply(200, { payId: request.path.split('/').at(-1), status: 'CAPTURED' }),
    );
    // 127.0.0.2: a loopback address other than the default, so binding HOST is visible
    const example = await startExampleReceiver({
      secret: 'whsec_example',
      host: '127.0.0.2',
      api: { baseUrl: `${api.baseUrl}/somewhere/api/v2`, merchantId: 'm_example', apiKey: 'sk_example' },
    });
    try {
      const port = new URL(example.url).port;
      expect((await fetch(`http://127.0.0.2:${port}/webhooks/enhanced`)).status).toBe(405);
      const elsewhere = await fetch(`http://127.0.0.1:${port}/webhooks/enhanced`).then(
        (r) => r.status,
        () => 'refused',
      );
      expect(elsewhere, 'nothing listens on 127.0.0.1').toBe('refused');
      expect(example.stdout.join('\n')).toContain(
        `webhook receiver on http://127.0.0.2:${port}/webhooks/{enhanced,basic}, API ${api.baseUrl}/somewhere/api/v2`,
      );

      const answer = await fetch(`${example.url}/webhooks/basic`, {
        method: 'POST',
        body: '{"payId":"pay_example_1"}',
      });
      expect(answer.status).toBe(200);
      await example.waitForAccepted('pay_example_1');
      expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /somewhere/api/v2/payments/getByPayId/pay_example_1',
      ]);
    } finally {
      await example.stop();
      await api.close();
    }
  }, 60_000);
});

describe('sandbox --cli-config', () => {
  const developerFile = join(REPO_ROOT, '.sandbox', 'cli.json');
  const fingerprint = async () =>
    existsSync(developerFile)
      ? `${(await stat(developerFile)).mtimeMs} ${await readFile(developerFile, 'utf8')}`
      : 'absent';

  it('writes the file where --cli-config says (0600), SANDBOX_CLI_CONFIG points the subcommands at it, SIGTERM removes it', async () => {
    const dir = await tempDir('cli-config-');
    const merchants = join(dir, 'merchants.json');
    await writeFile(merchants, JSON.stringify([{ merchantId: 'm_cfg', apiKey: 'sk_cfg', webhookSecret: 'whsec_cfg' }]));
    const file = join(dir, 'nested', 'cli.json');
    const before = await fingerprint();
    const sandbox = await startSandboxProcess({
      database: ':memory:',
      merchantsFile: merchants,
      extra: ['--cli-config', file],
    });
    try {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
        url: sandbox.baseUrl,
        merchants: [{ merchantId: 'm_cfg', apiKey: 'sk_cfg' }],
      });
      expect(sandbox.output()).toContain(`(in ${file})`);
      // no --url, no --admin-key: both from the file
      const clock = await runSandboxCommand(['clock'], 30_000, { SANDBOX_CLI_CONFIG: file });
      expect(clock.code, clock.stderr).toBe(0);
      expect(clock.stdout).toMatch(/^m_cfg \(test\): \S+/m);
    } finally {
      await sandbox.stop();
    }
    expect(existsSync(file), 'removed on SIGTERM').toBe(false);
    expect(await fingerprint(), "the developer's .sandbox/cli.json").toBe(before);
  }, 90_000);

  it('is listed by npm run sandbox -- --help (which printed a ReferenceError before)', async () => {
    const help = await runSandboxCommand(['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('--cli-config <path|none>');
  }, 30_000);

  it('none writes no file, and the banner says where the admin key is not', async () => {
    const dir = await tempDir('cli-config-none-');
    const merchants = join(dir, 'merchants.json');
    await writeFile(
      merchants,
      JSON.stringify([{ merchantId: 'm_none', apiKey: 'sk_none', webhookSecret: 'whsec_none' }]),
    );
    const before = await fingerprint();
    const sandbox = await startSandboxProcess({
      database: ':memory:',
      merchantsFile: merchants,
      extra: ['--cli-config', 'none'],
    });
    try {
      await until('the banner', () => /admin key {4}\S+/.test(sandbox.output()), 10_000, sandbox.output);
      expect(sandbox.output()).toMatch(/admin key {4}\S+\n/);
      expect(sandbox.output()).not.toContain('cli.json');
      expect(await fingerprint(), "the developer's .sandbox/cli.json").toBe(before);
    } finally {
      await sandbox.stop();
    }
  }, 60_000);
});
