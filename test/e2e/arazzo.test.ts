// The Arazzo workflows of arazzo/ run by an outside engine, Redocly Respect (`redocly respect`, a
// child process in its own process group, killed by group on timeout), against a fresh sandbox
// process with a merchant whose credentials the test knows, and a local shop for the hosted
// checkout's return URL. Respect's own checks stay on (status, content type and schema of every
// answer against its description); each file's JSON report must show every workflow, step and
// check passed, and the shop must have seen the customer come back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARAZZO_DIR, REPO_ROOT } from '../../generator/support/paths.js';
import type { ServerProcess } from '../../tooling/process/server-process.js';
import { SHORT_RUN_NODE_FLAGS } from '../../tooling/tiering.mjs';
import { MerchantSite } from '../support/merchant-site.js';
import { type CommandResult, runCommand, startSandboxProcess } from '../support/sandbox-process.js';

const REDOCLY = join(REPO_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const MERCHANT = { merchantId: 'arazzo_merchant', apiKey: 'sk_test_arazzo_workflows', webhookSecret: 'whsec_arazzo' };
const RESPECT_TIMEOUT_MS = 40_000;
/** The checks Respect makes of every answer unless told otherwise. */
const DEFAULT_CHECKS = ['status code check', 'content-type check', 'schema check'];

interface Check {
  name: string;
  passed: boolean;
  message?: string;
}
interface ExecutedStep {
  type: 'step';
  stepId: string;
  checks: Check[];
  response?: { statusCode: number; body?: unknown };
}
interface ExecutedWorkflow {
  type: 'workflow';
  workflowId: string;
  status: string;
  executedSteps: Array<ExecutedStep | ExecutedWorkflow>;
}
interface RespectReport {
  status: string;
  files: Record<string, { executedWorkflows: ExecutedWorkflow[] }>;
}
interface RespectRun {
  command: CommandResult;
  report: RespectReport;
}

/** Every step a workflow ran, through the nested entries Respect makes for a `goto`. */
function stepsOf(workflow: ExecutedWorkflow): ExecutedStep[] {
  return workflow.executedSteps.flatMap((s) => (s.type === 'workflow' ? stepsOf(s) : [s]));
}
/** The workflows a run started (a `goto` shows as a workflow nested in the one it continues). */
function startedWorkflows(run: RespectRun): ExecutedWorkflow[] {
  return Object.values(run.report.files).flatMap((f) => f.executedWorkflows);
}
/** Those and their nested continuations. */
function workflowsOf(run: RespectRun): ExecutedWorkflow[] {
  const nested = (w: ExecutedWorkflow): ExecutedWorkflow[] => [
    w,
    ...w.executedSteps.flatMap((s) => (s.type === 'workflow' ? nested(s) : [])),
  ];
  return startedWorkflows(run).flatMap(nested);
}
/** The failed checks, named for the message of an assertion. */
function failures(run: RespectRun): string[] {
  return startedWorkflows(run).flatMap((w) =>
    stepsOf(w).flatMap((s) =>
      s.checks.filter((c) => !c.passed).map((c) => `${w.workflowId}/${s.stepId}: ${c.name}: ${c.message ?? ''}`),
    ),
  );
}

describe('Arazzo workflows run by Redocly Respect against a sandbox', () => {
  let dir: string;
  let sandbox: ServerProcess;
  let site: MerchantSite;
  const runs = new Map<string, RespectRun>();
  const stamp = Date.now().toString(36).toUpperCase();

  /** `redocly respect <file> -S … -i … -J <report>`, run to its end or killed with its group. */
  async function respect(file: string, inputs: Record<string, string>, name = file): Promise<RespectRun> {
    const report = join(dir, `${name.replace(/\W/g, '_')}.json`);
    const command = await runCommand(
      process.execPath,
      [
        ...SHORT_RUN_NODE_FLAGS,
        REDOCLY,
        'respect',
        file,
        '-S',
        `paymentService=${sandbox.baseUrl}/api/v2`,
        ...(readFileSync(file, 'utf8').includes('name: hostedPage') ? ['-S', `hostedPage=${sandbox.baseUrl}`] : []),
        // as one JSON object: Respect's `key=value` form cuts a value at a second `=` or a `,`
        '-i',
        JSON.stringify({ merchantId: MERCHANT.merchantId, apiKey: MERCHANT.apiKey, ...inputs }),
        '--max-fetch-timeout',
        '10000',
        '-J',
        report,
      ],
      {
        env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', NO_COLOR: '1' },
        timeoutMs: RESPECT_TIMEOUT_MS,
      },
    );
    let parsed: RespectReport;
    try {
      parsed = JSON.parse(readFileSync(report, 'utf8')) as RespectReport;
    } catch {
      throw new Error(
        `redocly respect ${file} wrote no JSON report (exit ${command.code}, signal ${command.signal}):\n${command.stdout}\n${command.stderr}`,
      );
    }
    return { command, report: parsed };
  }

  const WORKFLOWS: Record<
    string,
    { file: string; workflowId: string; steps: string[]; inputs: () => Record<string, string> }
  > = {
    card: {
      file: 'card-payment.arazzo.yaml',
      workflowId: 'cardPaymentManualCapture',
      steps: [
        'obtainToken',
        'createPayment',
        'checkAuthorized',
        'capturePart',
        'refundPart',
        'overRefundRefused',
        'retrieveFinalState',
      ],
      inputs: () => ({ transId: `ARZ-${stamp}-CARD` }),
    },
    idempotency: {
      file: 'idempotent-retry.arazzo.yaml',
      workflowId: 'idempotentRetry',
      steps: ['firstAttempt', 'retrySameKey', 'sameKeyOtherBody', 'onePayment'],
      inputs: () => ({ transId: `ARZ-${stamp}-IDEM`, idempotencyKey: `arazzo-${stamp}-retry` }),
    },
    decline: {
      file: 'simulated-decline.arazzo.yaml',
      workflowId: 'simulatedDecline',
      steps: ['createDeclined', 'retrieveDeclined'],
      inputs: () => ({ transId: `ARZ-${stamp}-DECL` }),
    },
    hosted: {
      file: 'hosted-checkout.arazzo.yaml',
      workflowId: 'hostedCheckout',
      steps: ['createHostedPayment', 'waitingForCustomer', 'showPage', 'payOnPage', 'pageUsed', 'retrieveFinalState'],
      inputs: () => {
        const urls = site.urls(`ARZ-${stamp}-HOST`);
        return {
          transId: `ARZ-${stamp}-HOST`,
          returnUrl: urls.return,
          cancelUrl: urls.cancel,
          webhookUrl: `${site.url}/hooks`,
        };
      },
    },
    plans: {
      file: 'payment-plans.arazzo.yaml',
      workflowId: 'paymentPlansPaged',
      steps: ['countPlans', 'createPlan', 'firstPage', 'secondPage'],
      inputs: () => ({ transId: `ARZ-${stamp}-PLAN`, merchantCustomerId: `arazzo-${stamp}` }),
    },
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'arazzo-'));
    const merchants = join(dir, 'merchants.json');
    writeFileSync(merchants, JSON.stringify([MERCHANT]));
    [sandbox, site] = await Promise.all([
      startSandboxProcess({ database: join(dir, 'sandbox.db'), merchantsFile: merchants }),
      new MerchantSite().start(),
    ]);
    // one Respect process per file, at once: each file's inputs are its own
    const entries = await Promise.all(
      Object.entries(WORKFLOWS).map(
        async ([key, w]) => [key, await respect(join(ARAZZO_DIR, w.file), w.inputs())] as const,
      ),
    );
    for (const [key, run] of entries) runs.set(key, run);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([sandbox?.stop(), site?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(Object.keys(WORKFLOWS))('%s: every workflow, step and check passed, with Respect’s checks on', (key) => {
    const w = WORKFLOWS[key]!;
    const run = runs.get(key)!;
    expect(failures(run), run.command.stdout).toEqual([]);
    expect(run.report.status).toBe('success');
    expect(run.command.code).toBe(0);
    expect(startedWorkflows(run)).toHaveLength(1);
    const workflows = workflowsOf(run);
    expect(new Set(workflows.map((x) => x.workflowId))).toEqual(new Set([w.workflowId]));
    expect(workflows.every((x) => x.status === 'success')).toBe(true);
    const steps = startedWorkflows(run).flatMap(stepsOf);
    expect([...new Set(steps.map((s) => s.stepId))].sort()).toEqual([...w.steps].sort());
    const checks = steps.flatMap((s) => s.checks);
    console.info(
      `respect ${w.file}: ${w.workflowId} ${startedWorkflows(run)[0]!.status}, ${steps.length} steps, ${checks.filter((c) => c.passed).length}/${checks.length} checks passed`,
    );
    for (const step of steps) {
      const names = step.checks.map((c) => c.name);
      for (const check of [...DEFAULT_CHECKS, 'success criteria check']) expect(names, step.stepId).toContain(check);
    }
  });

  it('hosted checkout: the customer came back to the shop’s return URL with the payment, CAPTURED', () => {
    const run = runs.get('hosted')!;
    const created = stepsOf(startedWorkflows(run)[0]!).find((s) => s.stepId === 'createHostedPayment')!;
    const payId = (created.response?.body as { payId?: string } | undefined)?.payId;
    expect(payId).toMatch(/^\w+$/);
    const transId = `ARZ-${stamp}-HOST`;
    expect(site.of(transId)).toEqual([
      { path: '/return', query: { order: transId, payId, transId, status: 'CAPTURED' } },
    ]);
  });

  it('payment plans: more plans than a page holds were created, and both pages were read', () => {
    const steps = stepsOf(startedWorkflows(runs.get('plans')!)[0]!);
    const creates = steps.filter((s) => s.stepId === 'createPlan');
    const first = steps.find((s) => s.stepId === 'firstPage')!.response?.body as {
      pageSize: number;
      totalNumberOfItems: number;
    };
    expect(creates).toHaveLength(first.pageSize + 1);
    expect(first.totalNumberOfItems).toBe(first.pageSize + 1);
  });

  it('a workflow whose criteria the sandbox does not meet fails the run', async () => {
    // the decline workflow expecting another response code: Respect must report it and exit non-zero
    const source = readFileSync(join(ARAZZO_DIR, WORKFLOWS.decline!.file), 'utf8');
    const broken = source
      .replace("$response.body#/responseCode == '21000055'", "$response.body#/responseCode == '21000051'")
      .replace('url: ../generated/openapi.yaml', `url: ${resolve(REPO_ROOT, 'generated', 'openapi.yaml')}`);
    expect(broken).not.toBe(source);
    const file = join(dir, 'broken-decline.arazzo.yaml');
    writeFileSync(file, broken);
    const run = await respect(file, { transId: `ARZ-${stamp}-BROKEN` }, 'broken');
    expect(run.command.code).not.toBe(0);
    expect(run.report.status).toBe('error');
    expect(failures(run)).toEqual([expect.stringContaining('simulatedDecline/createDeclined: success criteria check')]);
  }, 60_000);
});
