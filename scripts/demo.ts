/**
 * The demo (`npx projen demo`): a real deploy of examples/basic against a local stand-in Qdrant
 * cluster with a throw-away demo key. It prints the health-check lines that Terraform shows,
 * shows what a wrong key does, then destroys everything. Needs terraform and go (see CONTRIBUTING.md).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BasicStack } from '../examples/basic/main';
import { StandInQdrant, canaryKey } from '../tools/testing/stand-in-qdrant';
import { TerraformRun, initAndApply, synthStack, terraform } from '../tools/testing/terraform';

/** The lines that come from the health check (Terraform prefixes them with the resource). */
function checkLines(run: TerraformRun): string[] {
  return `${run.stdout}\n${run.stderr}`.split('\n')
    .map((l) => l.replace(/^null_resource\.\S+ \(local-exec\): /, '  ').trimEnd())
    .filter((l) => /^\s*(ok|FAIL) /.test(l) || /Output: (ok|FAIL)/.test(l));
}

async function main(): Promise<void> {
  const demoKey = canaryKey('demo');
  const cluster = await StandInQdrant.start({ apiKey: demoKey });
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'qdrant-cluster-access-demo-'));
  const env = { TF_VAR_qdrant_api_key_search_api: demoKey };
  let failed = false;
  try {
    console.log(`stand-in Qdrant cluster at ${cluster.url} (REST, TLS with a CA made for this run)`);
    const dir = synthStack(out, 'basic', (app, id) => new BasicStack(app, id, { url: cluster.url, caFile: cluster.caFile, grpcPort: Number(new URL(cluster.grpcUrl).port) }));
    console.log(`synthesized examples/basic into ${dir}\n`);

    console.log('$ TF_VAR_qdrant_api_key_search_api=<demo key> terraform apply');
    const apply = await initAndApply(dir, env);
    for (const line of checkLines(apply)) console.log(line);
    if (apply.exitCode !== 0) {
      failed = true;
      console.error(apply.stdout, apply.stderr);
      return;
    }
    console.log(`apply: ok in ${apply.ms} ms\n`);

    console.log('$ TF_VAR_qdrant_api_key_search_api=<a wrong key> terraform apply');
    const wrong = await terraform(dir, ['apply', '-auto-approve', '-input=false', '-no-color'],
      { TF_VAR_qdrant_api_key_search_api: canaryKey('wrong') });
    const reason = wrong.stderr.replace(/\s+/g, ' ').match(/Output: (FAIL .*?ms)/)?.[1];
    console.log(`  apply failed as it should (exit ${wrong.exitCode}): ${reason ?? wrong.stderr}`);
    if (wrong.exitCode === 0) failed = true;
    console.log();

    const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], env);
    console.log(`$ terraform destroy\n  ${destroy.exitCode === 0 ? 'destroyed' : `destroy failed:\n${destroy.stderr}`}`);
    if (destroy.exitCode !== 0) failed = true;
  } finally {
    await cluster.stop();
    fs.rmSync(out, { recursive: true, force: true });
    process.exitCode = failed ? 1 : 0;
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
