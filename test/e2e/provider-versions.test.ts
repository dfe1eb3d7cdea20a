/**
 * The stack's constraint on hashicorp/null is a range users can meet (`~> 3.2`), not an exact pin:
 * a user's stack whose own configuration pins hashicorp/null exactly (here a module of theirs with
 * its own `required_providers`, as published modules have) inits with real Terraform, takes that
 * release of the real provider from the offline mirror, and applies: the user's null_resource and
 * the key's check both run. Once per release the mirror holds (3.2.4 and 3.3.1). A control shows
 * that the exact pin this library once wrote (`3.2.4`) fails the same init against 3.3.1.
 *
 * The offline setup also installs the real hashicorp/http from the mirror, with Terraform and with
 * OpenTofu (each under its own origin).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformHclModule } from 'cdktf';
import { BasicStack } from '../../examples/basic/main';
import { StandInQdrant, canaryKey } from '../../tools/testing/stand-in-qdrant';
import { engineVariants, mirroredProviderVersions, synthStack, tempDir, terraform } from '../../tools/testing/terraform';
import type { Variant } from '../../tools/testing/variants';
import { describeVariants } from '../../tools/testing/variants';

jest.setTimeout(180_000);

/** The releases of hashicorp/null a user may pin next to this library. */
const RELEASES = ['3.2.4', '3.3.1'];
const KEY_VAR = 'TF_VAR_qdrant_api_key_search_api';
const OK_LINE = /ok +search-api → prod-eu +qdrant \S+ +key accepted, keys enforced/;

const mirrored = mirroredProviderVersions('null');
const releases: Variant<string>[] = RELEASES.map((v) => (mirrored.includes(v)
  ? { label: `hashicorp/null ${v}`, value: v }
  : { label: `hashicorp/null ${v}`, unavailable: `the offline provider mirror has no hashicorp/null ${v} (it has: ${mirrored.join(', ') || 'none'})` }));

/**
 * examples/basic with the user's own module beside the library's constructs; the module pins
 * hashicorp/null to `pin` in its own required_providers. `rootPin` overrides the library's
 * constraint (the control). Returns the stack directory.
 */
function userStack(cluster: StandInQdrant, pin: string, rootPin?: string): string {
  const dir = synthStack(tempDir('qca-e2e-null-'), 'user', (app, id) => {
    const stack = new BasicStack(app, id, { url: cluster.url, caFile: cluster.caFile, grpcPort: Number(new URL(cluster.grpcUrl).port) });
    // Written beside the stack after synth (below), as cdktf would copy a module of the app's own.
    new TerraformHclModule(stack, 'users_module', { source: './users-module', skipAssetCreationFromLocalModules: true });
    if (rootPin) stack.addOverride('terraform.required_providers.null.version', rootPin);
    return stack;
  });
  fs.mkdirSync(path.join(dir, 'users-module'));
  fs.writeFileSync(path.join(dir, 'users-module', 'main.tf'), [
    'terraform {',
    `  required_providers { null = { source = "hashicorp/null", version = "${pin}" } }`,
    '}',
    `resource "null_resource" "users_own" { triggers = { pinned = "${pin}" } }`,
    '',
  ].join('\n'));
  return dir;
}

describeVariants('provider', releases, 'a user\'s module pins hashicorp/null next to the library', (release) => {
  const key = canaryKey('canary-null-pin');
  let cluster: StandInQdrant;
  let dir: string | undefined;
  const tf = (args: string[]) => terraform(dir!, [...args, '-input=false', '-no-color'], { [KEY_VAR]: key });

  beforeAll(async () => {
    cluster = await StandInQdrant.start({ apiKey: key });
    dir = userStack(cluster, release);
  });
  afterAll(async () => {
    if (dir && fs.existsSync(path.join(dir, 'terraform.tfstate'))) await tf(['destroy', '-auto-approve']);
    await cluster?.stop();
  });

  test('the library asks for ~> 3.2, not for one release', () => {
    const json = JSON.parse(fs.readFileSync(path.join(dir!, 'cdk.tf.json'), 'utf8'));
    expect(json.terraform.required_providers.null).toEqual({ source: 'null', version: '~> 3.2' });
  });

  test(`init takes hashicorp/null ${release} from the mirror, meeting both constraints`, async () => {
    const init = await tf(['init']);
    expect({ code: init.exitCode, stderr: init.stderr }).toEqual({ code: 0, stderr: '' });
    expect(init.stdout).toContain(`Installed hashicorp/null v${release}`);
    const lock = fs.readFileSync(path.join(dir!, '.terraform.lock.hcl'), 'utf8');
    expect(lock).toMatch(new RegExp(`provider "registry\\.(terraform\\.io|opentofu\\.org)/hashicorp/null" \\{\\s+version\\s+= "${release.replace(/\./g, '\\.')}"\\s+constraints = "~> 3\\.2, ${release.replace(/\./g, '\\.')}"`));
  });

  test('apply runs the user\'s null_resource and the key\'s check', async () => {
    const apply = await tf(['apply', '-auto-approve']);
    expect({ code: apply.exitCode, stderr: apply.stderr }).toEqual({ code: 0, stderr: '' });
    expect(apply.stdout).toContain('module.users_module.null_resource.users_own: Creation complete');
    expect(apply.stdout).toMatch(OK_LINE);
    expect(apply.stdout).not.toContain(key);
  });
});

describe('the control: an exact pin of hashicorp/null in the stack', () => {
  const newest = RELEASES[RELEASES.length - 1];
  (mirrored.includes(newest) ? test : test.skip)(`"3.2.4" beside a module that pins ${newest}: init fails, naming both constraints`, async () => {
    const cluster = await StandInQdrant.start({ apiKey: canaryKey('canary-null-control') });
    try {
      const dir = userStack(cluster, newest, '3.2.4');
      const init = await terraform(dir, ['init', '-input=false', '-no-color']);
      expect(init.exitCode).not.toBe(0);
      expect(init.stderr.replace(/\s+/g, ' ')).toContain(`no available releases match the given constraints 3.2.4, ${newest}`);
    } finally {
      await cluster.stop();
    }
  });
});

describeVariants('Terraform engine', engineVariants(), 'the offline setup installs hashicorp/http', (engine) => {
  test('init of a configuration that needs hashicorp/http 3.6.0 takes it from the mirror', async () => {
    const dir = tempDir('qca-e2e-http-');
    fs.writeFileSync(path.join(dir, 'main.tf'), 'terraform {\n  required_providers { http = { source = "hashicorp/http", version = "3.6.0" } }\n}\n');
    const init = await terraform(dir, ['init', '-input=false', '-no-color'], {}, engine);
    expect({ code: init.exitCode, stderr: init.stderr }).toEqual({ code: 0, stderr: '' });
    expect(init.stdout).toContain('Installed hashicorp/http v3.6.0');
    expect(fs.readFileSync(path.join(dir, '.terraform.lock.hcl'), 'utf8')).toMatch(/provider "registry\.(terraform\.io|opentofu\.org)\/hashicorp\/http" \{\s+version\s+= "3\.6\.0"/);
  });
});
