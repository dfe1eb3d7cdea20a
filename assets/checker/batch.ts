/** Many grants of one key in one process, a bounded number at a time; one report per grant, in the order given. */
import { checkGrant } from './check';
import { Grant, parseBaseUrl, prepare, SharedCheckOptions, withoutSecrets } from './options';
import type { BatchReport, CheckReport } from './report';
import { RuntimeError, messageOf } from '../runtime/errors';
import { redact } from '../runtime/secrets';
import { quote } from '../runtime/text';
import { DEFAULT_GRPC_PORT, DEFAULT_REST_PORT, notAsChecked, showUrl } from '../runtime/url';

/** Validates a list of grants ({label?, url, grpcUrl?}): a usage error naming the entry, redacted before clipped. */
export function checkGrantList(grants: unknown, secrets: readonly (string | undefined)[] = []): Grant[] {
  const show = (value: string, max: number) => quote(redact(value, secrets), max);
  if (!Array.isArray(grants) || grants.length === 0) throw new RuntimeError('the grants must be a non-empty list of {"label","url","grpcUrl"}');
  return grants.map((g: unknown, i) => {
    if (!g || typeof g !== 'object' || Array.isArray(g)) throw new RuntimeError(`grant ${i + 1} is not an object with "url"`);
    const fields = g as Record<string, unknown>;
    for (const k of Object.keys(fields)) {
      if (!['label', 'url', 'grpcUrl'].includes(k)) throw new RuntimeError(`grant ${i + 1} has unknown field ${show(k, 40)} (expected label, url, grpcUrl)`);
    }
    for (const k of ['label', 'url', 'grpcUrl']) {
      if (fields[k] !== undefined && typeof fields[k] !== 'string') throw new RuntimeError(`grant ${i + 1}: ${k} must be a string`);
    }
    const grant = fields as Partial<Grant>;
    if (grant.url === undefined) throw new RuntimeError(`grant ${i + 1} has no "url"`);
    // Checked before anything is sent; the targets get the address as written: it must be the one checked.
    for (const [k, port] of [['url', DEFAULT_REST_PORT], ['grpcUrl', DEFAULT_GRPC_PORT]] as const) {
      const written = grant[k];
      if (written === undefined) continue;
      const where = `grant ${i + 1}${grant.label ? ` (${show(grant.label, 60)})` : ''}`;
      let checked: string;
      try {
        checked = parseBaseUrl(written, port, secrets).url;
      } catch (err) {
        throw new RuntimeError(`${where}: ${messageOf(err)}`);
      }
      if (written !== checked) throw new RuntimeError(`${where}: ${k === 'url' ? 'url' : 'gRPC URL'} ${showUrl(written)} ${notAsChecked(checked)}`);
    }
    return { label: grant.label, url: grant.url, grpcUrl: grant.grpcUrl };
  });
}

/** Checks every grant with one key, `concurrency` at a time (`onReport` sees each when done); rejects only with a usage error. */
export async function checkMany(options: SharedCheckOptions, grants: Grant[],
  settings: { concurrency?: number; onReport?: (report: CheckReport, index: number) => void } = {}): Promise<BatchReport> {
  const { concurrency = 8, onReport } = settings;
  const secrets = [options && options.apiKey];
  const { list, shared } = await withoutSecrets(secrets, () => ({ list: checkGrantList(grants, secrets), shared: prepare(options) }));
  const reports: CheckReport[] = new Array(list.length);
  let next = 0;
  const worker = async () => {
    while (next < list.length) {
      const i = next++;
      reports[i] = await checkGrant(shared, list[i]);
      if (onReport) onReport(reports[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, list.length) }, worker));
  const { expiresAt } = shared.keyInfo;
  return {
    ok: reports.every((r) => r.ok),
    expiresAt: expiresAt ? expiresAt.toISOString() : null,
    grants: reports,
    failed: reports.filter((r) => !r.ok).map((r) => r.label),
  };
}
