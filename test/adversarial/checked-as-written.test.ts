/**
 * Class 5 of issue #29: a value that reaches a target is exactly the value that was checked. A
 * cluster URL known only at deploy (a token: here a Terraform variable) was trimmed by the checker
 * before it checked, and its scheme and host lower-cased, while Terraform wrote it untrimmed and
 * as written into the .env, the JSON file and the outputs: the check passed, and the app got
 * `' https://…'`, which qdrant-client cannot parse. Now the check refuses an address that is not
 * written exactly as it checks it, saying why and what to write, and nothing is written; an
 * address the constructs themselves put in that form (a trailing "/" taken off) reaches every
 * target exactly as checked. With real Terraform and a real Qdrant.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TerraformStack, TerraformVariable } from 'cdktf';
import * as dotenv from 'dotenv';
import { checkGrantList } from '../../assets/checker/batch';
import { ClusterAccess, SecretTarget } from '../../src';
import { RealQdrant, qdrantVariants } from '../../tools/testing/real-qdrant';
import { canaryKey } from '../../tools/testing/stand-in-qdrant';
import { initAndApply, synthStack, tempDir, terraform } from '../../tools/testing/terraform';
import { describeVariants } from '../../tools/testing/variants';
import { appFiles, scannedRuns } from '../support/app-files';

jest.setTimeout(300_000);

const KEY = canaryKey('canary-as-written');
const ENV_BEFORE = '# app\nDATABASE_URL=postgres://db/app\n';
const JSON_BEFORE = '{ "region": "eu" }\n';

const runs = scannedRuns(KEY);

// One server version: what is written is the configuration's, not the server's.
describeVariants('real-Qdrant', qdrantVariants().slice(-1), 'a cluster URL from a token reaches every target exactly as checked', (binary) => {
  let q: RealQdrant;
  beforeAll(async () => {
    q = await RealQdrant.start({ binary, apiKey: KEY });
  }, 120_000);
  afterAll(async () => {
    await q?.stop();
  });

  /**
   * Deploys key `app` on one cluster whose url is the variable `cluster_url`, set to `url`, to a
   * .env, a JSON file and the outputs; returns what each holds after the apply, and destroys.
   */
  async function deploy(name: string, url: string) {
    const files = appFiles(tempDir('qca-as-written-'), name, ENV_BEFORE, JSON_BEFORE);
    const dir = synthStack(path.join(files.base, 'cdktf.out'), 'aswritten', (app, id) => {
      const stack = new TerraformStack(app, id);
      new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'prod-eu', url: new TerraformVariable(stack, 'cluster_url', { type: 'string' }).stringValue, grpcPort: q.grpcPort }],
        apiKeys: [{
          name: 'app',
          clusters: ['prod-eu'],
          secretTargets: [SecretTarget.dotenv({ path: files.envFile }), SecretTarget.json({ path: files.jsonFile }), SecretTarget.terraformOutputs()],
        }],
        healthCheck: { caFile: q.caFile, retries: 0 },
        setupGuide: { enabled: false },
      });
      return stack;
    });
    const env = { TF_VAR_qdrant_api_key_app: KEY, TF_VAR_cluster_url: url };
    const apply = await initAndApply(dir, env);
    runs.push(apply);
    const output = await terraform(dir, ['output', '-json'], env);
    const outputs = Object.fromEntries(Object.entries<{ value: string }>(JSON.parse(output.stdout || '{}'))
      .filter(([n]) => n === 'QDRANT_URL' || n === 'QDRANT_GRPC_URL').map(([n, o]) => [n, o.value]));
    const written = {
      env: dotenv.parse(fs.readFileSync(files.envFile, 'utf8')),
      json: JSON.parse(fs.readFileSync(files.jsonFile, 'utf8')),
      envText: fs.readFileSync(files.envFile, 'utf8'),
      jsonText: fs.readFileSync(files.jsonFile, 'utf8'),
      outputs,
    };
    const destroy = await terraform(dir, ['destroy', '-auto-approve', '-input=false', '-no-color'], env);
    runs.push(destroy);
    expect(destroy.exitCode).toBe(0);
    expect(fs.readFileSync(files.envFile, 'utf8')).toBe(ENV_BEFORE);
    return { apply, said: apply.stderr.replace(/\s+/g, ' '), written };
  }

  /** Nothing reached the app: the files as they were, and no output with a value. */
  function nothingWritten(written: Awaited<ReturnType<typeof deploy>>['written']): void {
    expect(written.envText).toBe(ENV_BEFORE);
    expect(written.jsonText).toBe(JSON_BEFORE);
    expect(Object.values(written.outputs).filter((v) => v !== '')).toEqual([]);
  }

  test.each([
    ['a space before it', (u: string) => ` ${u}`, 'holds whitespace or a control character; expected https://<host> or https://<host>:<port>'],
    ['a line break before it (a value read from a file)', (u: string) => `\n${u}`, 'holds whitespace or a control character'],
    ['a byte order mark before it', (u: string) => `\uFEFF${u}`, 'holds whitespace or a control character'],
  ])('with %s: refused by the check, nothing written', async (_, url, message) => {
    const { apply, said, written } = await deploy('space', url(q.restUrl));
    expect(apply.exitCode).not.toBe(0);
    expect(said).toContain('grant 1 ("app → prod-eu"): url "');
    expect(said).toContain(message);
    nothingWritten(written);
  });

  test.each([
    ['its scheme in upper case', (u: string) => u.replace('https://', 'HTTPS://'), (u: string) => u],
    ['its host in upper case', (u: string) => u.replace('127.0.0.1', 'LOCALHOST'), (u: string) => u.replace('127.0.0.1', 'localhost')],
  ])('with %s: refused by the check, saying how to write it, nothing written', async (_, url, checked) => {
    const given = url(q.restUrl);
    const { apply, said, written } = await deploy('case', given);
    expect(apply.exitCode).not.toBe(0);
    expect(said).toContain(`grant 1 ("app → prod-eu"): url "${given}" is not written as the check uses it, "${checked(q.restUrl)}" ` +
      '(scheme and host in lower case, an IDN in punycode, the port written, no "/" at the end): the targets would get it as written, ' +
      'not as checked; give the cluster\'s address in that form');
    nothingWritten(written);
  });

  test('with a "/" at the end, which the constructs take off for the check and the targets alike: each target gets exactly the checked address', async () => {
    const { apply, written } = await deploy('slash', `${q.restUrl}/`);
    expect(apply.exitCode).toBe(0);
    expect(apply.stdout).toMatch(/\(local-exec\): ok +app → prod-eu /);
    const expected = { QDRANT_URL: q.restUrl, QDRANT_GRPC_URL: q.grpcUrl };
    expect({ QDRANT_URL: written.env.QDRANT_URL, QDRANT_GRPC_URL: written.env.QDRANT_GRPC_URL }).toEqual(expected);
    expect({ QDRANT_URL: written.json.QDRANT_URL, QDRANT_GRPC_URL: written.json.QDRANT_GRPC_URL }).toEqual(expected);
    expect(written.outputs).toEqual(expected);
  });
});

describe('the checker refuses a grant address it would have to change, before anything is sent', () => {
  test.each([
    ['https://bücher.example:6333', 'https://xn--bcher-kva.example:6333'],
    ['https://Q.example.com:6333', 'https://q.example.com:6333'],
    ['https://q.example.com', 'https://q.example.com:6333'],
    ['https://q.example.com:6333/', 'https://q.example.com:6333'],
    ['http://[::1]:6333', undefined],
  ])('%s', (written, checked) => {
    if (checked === undefined) {
      expect(checkGrantList([{ label: 'a', url: written }])).toEqual([{ label: 'a', url: written }]);
      return;
    }
    expect(() => checkGrantList([{ label: 'a', url: written }])).toThrow(`grant 1 ("a"): url ${JSON.stringify(written)} is not written as the check uses it, "${checked}"`);
    expect(() => checkGrantList([{ label: 'a', url: checked, grpcUrl: written.replace(':6333', ':6334') }]))
      .toThrow(`grant 1 ("a"): gRPC URL ${JSON.stringify(written.replace(':6333', ':6334'))} is not written as the check uses it`);
  });
});
