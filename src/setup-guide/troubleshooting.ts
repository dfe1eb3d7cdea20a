/** Section 7: the engine's failures from the checker's catalog (its words and order), and messages from no check. */
import { Heading, code, table } from './markdown';
import { GuideModel } from './model';
import { FAILURES, protocol } from '../private/runtime';

export function troubleshootingSection(m: GuideModel, h: Heading): string[] {
  const out = h(1, '7. Troubleshooting');
  const tf = m.checks.engine === 'terraform';
  const ids = new Set(m.checks.failureIds);
  out.push(tf
    ? 'With `CheckEngine.TERRAFORM`, a failed check fails the plan: each failed request is an `Error: Resource postcondition failed` ' +
      'whose message is `FAIL <key> → <cluster>  step <step>: <reason>` (`root` and `enforced` name every key of the cluster). ' +
      'The reason starts with one of these:'
    : 'Each failed health check prints one line per cluster, `FAIL <key> → <cluster>  step <step>: <reason>`, and a summary of the failed clusters. ' +
      'The reason starts with one of these:');
  out.push(
    ...table(['The check says', 'Likely cause', 'Fix'], FAILURES.filter((f) => ids.has(f.id)).map((f) => [code(f.phrase), f.cause, f.fix])),
    'A deploy can also stop with one of these messages, which come from no check:',
    '',
    ...table(['Message', 'When', 'Fix'], [
      ['`Qdrant API key "<name>" has no value: run read -rs TF_VAR_…`', 'before any check (the plan)',
        'Set the key in the shell that runs the deploy (the `read -rs` line of section 3), then deploy again.'],
      ...(tf ? TERRAFORM_MESSAGES : NODE_MESSAGES),
    ]),
  );
  // The option ranges, from the checker's own specs.
  const t = protocol.CHECK_OPTIONS.timeout;
  out.push(tf
    ? `Timeouts: \`healthCheck.timeoutSeconds\` (${t.min}-${t.max}, default ${t.default}) is each request's \`request_timeout_ms\`, and \`healthCheck.retries\` the \`retry\` attempts ` +
      'after a network error, a timeout, a 429 or a 5xx; there is no overall time limit.'
    : `Timeouts: \`healthCheck.timeoutSeconds\` is ${t.min}-${t.max} (default ${t.default}); each cluster's check ends after max(60, 4 × timeout) seconds, retries included.`);
  return out;
}

/** The bundled checker's and writer's messages that no check step reports. */
const NODE_MESSAGES = [
  ['`environment variable TF_VAR_… is not set` (from the check or the writer)', 'when a check starts, or while writing a file target',
    'The key was given with `-var` or a `.tfvars` file, which the checks cannot read: export `TF_VAR_…` instead.'],
  ['`refusing to change <file>: line N: QDRANT_… is already defined outside the managed block`',
    'after the checks passed, while writing a file target; the file is left as it was',
    'The app\'s file already defines one of our names outside the managed block: remove that line, or rename our entry (`secretNaming`).'],
  ['`TF_VAR_… in the environment is not the value Terraform uses for variable …`', 'when a check starts, before any request',
    'The key is set twice: exported, and by `-var`, a `.tfvars` or `*.auto.tfvars` file, which wins in Terraform. Give it one way only: export it, and remove the other.'],
  [code(`${protocol.NODE_MISSING.checker.split(':')[0]}: …`), 'when a check starts',
    'Install Node.js 18 or later on the machine that runs Terraform, or let Terraform check the keys itself: `healthCheck: { engine: CheckEngine.TERRAFORM }` (docs/engines.md).'],
];

/** hashicorp/http's errors: what the Node checker reports as catalog failures, Terraform reports as the provider's. */
const TERRAFORM_MESSAGES = [
  ['`tls: failed to verify certificate: x509: certificate signed by unknown authority`', 'a request of the plan (not retried)',
    'The cluster\'s certificate is not signed by a CA the runner trusts. For a private CA, set `healthCheck.caFile` to a PEM with every CA of the chain: it replaces the runner\'s roots.'],
  ['`Error making request: GET <url> giving up after N attempt(s): … connection refused` (or `no such host`)', 'a request of the plan, after the retries',
    'The runner cannot reach the cluster: check the URL and that the runner\'s network reaches its REST port. A destroy fails on it too: `terraform destroy -refresh=false` skips the reads.'],
  ['`Error making request: GET <url> giving up after N attempt(s)` with no reason, or `request exceeded the specified timeout`', 'a request of the plan, after the retries',
    'The cluster answered 5xx or 429 every time, or not in time: try again later, or raise `healthCheck.timeoutSeconds` or `retries`.'],
];
