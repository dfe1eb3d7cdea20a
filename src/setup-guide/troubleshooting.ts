/**
 * Section 7 of the setup guide: every failure a health check can report, generated from the
 * checker's failure catalog (assets/checker/failures.js), in the catalog's words and order. Not
 * exported.
 */
import { Heading, code, table } from './markdown';
import { FAILURES, protocol } from '../private/runtime';

export function troubleshootingSection(h: Heading): string[] {
  const out = h(1, '7. Troubleshooting');
  out.push('Each failed health check prints one line per cluster, `FAIL <key> → <cluster>  step <step>: <reason>`, and a summary of the failed clusters. ' +
    'The reason starts with one of these:');
  out.push(...table(['The check says', 'Likely cause', 'Fix'], FAILURES.map((f) => [code(f.phrase), f.cause, f.fix])));
  out.push(
    'A deploy can also stop with one of these messages, which come from no check:',
    '',
    ...table(['Message', 'When', 'Fix'], [
      ['`Qdrant API key "<name>" has no value: run read -rs TF_VAR_…`', 'before any check (the plan)',
        'Set the key in the shell that runs the deploy (the `read -rs` line of section 3), then deploy again.'],
      ['`environment variable TF_VAR_… is not set` (from the check or the writer)', 'when a check starts, or while writing a file target',
        'The key was given with `-var` or a `.tfvars` file, which the checks cannot read: export `TF_VAR_…` instead.'],
      ['`refusing to change <file>: line N: QDRANT_… is already defined outside the managed block`',
        'after the checks passed, while writing a file target; the file is left as it was',
        'The app\'s file already defines one of our names outside the managed block: remove that line, or rename our entry (`secretNaming`).'],
      ['`TF_VAR_… in the environment is not the value Terraform uses for variable …`', 'when a check starts, before any request',
        'The key is set twice: exported, and by `-var`, a `.tfvars` or `*.auto.tfvars` file, which wins in Terraform. Give it one way only: export it, and remove the other.'],
    ]),
  );
  // The option ranges, from the checker's own specs.
  const t = protocol.CHECK_OPTIONS.timeout;
  out.push(`Timeouts: \`healthCheck.timeoutSeconds\` is ${t.min}-${t.max} (default ${t.default}); each cluster's check ends after max(60, 4 × timeout) seconds, retries included.`);
  return out;
}
