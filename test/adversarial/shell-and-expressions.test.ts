/**
 * Class 1: nothing a user passes reaches a shell or Terraform's expression language unchecked.
 * Props are checked by value at synth; whatever gets into the stack anyway reaches the shell only
 * quoted, through the environment; strings the library computes (paths, owners) are checked; the
 * setup guide's snippets paste as exactly what they say.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, TerraformStack, Testing } from 'cdktf';
import { ApiKeyHeader, ClusterAccess, SecretTarget, SetupGuide } from '../../src';
import { newStack } from '../support/synth';

const URL_EU = 'https://abc-123.eu-central-1-0.aws.cloud.qdrant.io';

function tmp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** The `[path] message` lines of a synth with validations (aspects included), '' when it passes. */
function synthErrors(stack: TerraformStack): string {
  try {
    Testing.synth(stack, true);
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

describe('props are checked by value, not by their TypeScript type', () => {
  test('an enum prop holding a shell command is a synth error, and never reaches a command line', () => {
    const dirs: string[] = [];
    const made = (prefix: string) => {
      dirs.push(tmp(prefix));
      return dirs[dirs.length - 1];
    };
    try {
      const marker = path.join(made('qca-marker-'), 'pwned');
      const hostile = `api-key; touch ${marker}; true` as ApiKeyHeader;
      const props = {
        clusters: [{ name: 'prod-eu', url: URL_EU }],
        apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }],
        healthCheck: { header: hostile },
      };
      const stack = newStack();
      new ClusterAccess(stack, 'Qdrant', props);
      // Longer than a short option: not shown (it might as well be a key pasted there).
      expect(synthErrors(stack)).toContain('[test/Qdrant] ClusterAccess props.healthCheck.header must be one of "api-key", "bearer"; got ' +
      '(not shown: it may be an API key)');

      // With validation skipped, the value still only reaches the shell quoted: run the command.
      const app = new App({ skipValidation: true, outdir: made('qca-skip-') });
      const skipped = new TerraformStack(app, 'skipped');
      new ClusterAccess(skipped, 'Qdrant', props);
      const json = JSON.parse(Testing.synth(skipped));
      const exec = Object.values<any>(json.resource.null_resource)[0].provisioner[0]['local-exec'];
      expect(exec.command).not.toContain('touch');
      const probe = path.join(made('qca-probe-'), 'probe.js');
      fs.writeFileSync(probe, 'process.stdout.write(JSON.stringify(process.argv.slice(2)))');
      const argv = JSON.parse(execFileSync('sh', ['-c', exec.command], { env: { PATH: process.env.PATH ?? '', ...exec.environment, QCA_CLI: probe }, encoding: 'utf8' }));
      expect(argv).toContain(`api-key; touch ${marker}; true`); // one argument, as given
      expect(fs.existsSync(marker)).toBe(false);
    } finally {
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test.each([
    ['https://x${uuid()}.example.com', 'holds "${" or "%{", which Terraform would evaluate as an expression'],
    ['https://x%{if true}y.example.com', 'holds whitespace or a control character'],
    ['https://x$(touch).example.com', 'is not a DNS name'],
    ['https://x`id`.example.com', 'is not a DNS name'],
    ["https://x'y.example.com", 'is not a DNS name'],
    ['https://x"y.example.com', 'is not a DNS name'],
    ['https://x;y.example.com', 'is not a DNS name'],
    ['https://x|y.example.com', 'is not a DNS name'],
    ['https://x\\y.example.com', 'holds a backslash'],
    ['https://x y.example.com', 'holds whitespace or a control character'],
    ['https:abc.example.com:7443', 'is not written as https://<host>[:<port>]'],
    ['https:/abc.example.com', 'is not written as https://<host>[:<port>]'],
  ])('a cluster url %j is refused at synth', (url, problem) => {
    const stack = newStack();
    new ClusterAccess(stack, 'Qdrant', { clusters: [{ name: 'prod-eu', url }], apiKeys: [{ name: 'k', clusters: ['prod-eu'] }] });
    const message = synthErrors(stack);
    expect(message).toContain(`[test/Qdrant/Clusters/prod-eu] cluster "prod-eu" url ${JSON.stringify(url)} `);
    expect(message.split('\n').find((l) => l.includes('[test/Qdrant/Clusters/prod-eu]'))).toContain(problem);
  });

  test('an IDN host becomes punycode in the endpoints and the stack', () => {
    const stack = newStack();
    const access = new ClusterAccess(stack, 'Qdrant', { clusters: [{ name: 'prod-eu', url: 'https://bücher.example' }], apiKeys: [{ name: 'k', clusters: ['prod-eu'] }] });
    expect(access.clusters[0].restEndpoint).toBe('https://xn--bcher-kva.example:6333');
    expect(Testing.synth(stack, true)).not.toContain('bücher');
  });
});

describe('strings the library builds and places in the stack are checked at synth', () => {
  test('a working directory holding "${" makes a relative file target path a synth error', () => {
    const base = tmp('qca-cwd-');
    const evil = path.join(base, 'x${uuid()}');
    fs.mkdirSync(evil);
    const cwd = process.cwd();
    process.chdir(evil);
    try {
      const stack = newStack();
      new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'prod-eu', url: URL_EU }],
        apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: '.env' })] }],
      });
      expect(synthErrors(stack)).toContain(`secret target .env file ".env": the file ${JSON.stringify(path.join(evil, '.env'))} holds "\${", "%{"`);
    } finally {
      process.chdir(cwd);
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  test('a CA file whose path holds "${" is a synth error', () => {
    const base = tmp('qca-ca-');
    const dir = path.join(base, '${path.root}');
    fs.mkdirSync(dir);
    const ca = path.join(dir, 'ca.pem');
    fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    try {
      const stack = newStack();
      new ClusterAccess(stack, 'Qdrant', { clusters: [{ name: 'prod-eu', url: URL_EU }], apiKeys: [{ name: 'k', clusters: ['prod-eu'] }], healthCheck: { caFile: ca } });
      expect(synthErrors(stack)).toContain(`[test/Qdrant] healthCheck.caFile ${JSON.stringify(ca)} holds "\${"`);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  // (A long path is no problem: it owns entries under a shortened name, see long-owners.test.ts.)
  test.each(['Qdrant access', 'Q$(id)', 'Q`id`'])('a construct path %j that cannot name the entries of a shared file is a synth error', (id) => {
    const stack = newStack();
    new ClusterAccess(stack, id, {
      clusters: [{ name: 'prod-eu', url: URL_EU }],
      apiKeys: [{ name: 'k', clusters: ['prod-eu'], secretTargets: [SecretTarget.dotenv({ path: path.join(os.tmpdir(), 'qca-never-written.env') })] }],
    });
    expect(synthErrors(stack)).toContain('cannot name its entries in a shared file');
  });
});

describe('every value in a setup-guide snippet is escaped for its language', () => {
  test('pasting the bash snippets runs nothing but the commands they show', () => {
    const dir = tmp('qca-paste-');
    try {
      const marker = path.join(dir, 'pwned');
      const app = Testing.app();
      // cdktf refuses whitespace and glob characters in a stack id, not "$(", ";", "`" or ">" (each creates the marker if run).
      const stack = new TerraformStack(app, 'prod$(>pwned);>pwned`>pwned`');
      const access = new ClusterAccess(stack, 'Qdrant', {
        clusters: [{ name: 'prod-eu', url: 'https://bücher.example' }],
        apiKeys: [{ name: 'search-api', clusters: ['prod-eu'] }],
      });
      const guide = SetupGuide.render(access);
      const blocks = [...guide.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]);
      expect(blocks.length).toBeGreaterThanOrEqual(3);
      // Stand-ins for the commands the snippets call: they record their arguments.
      const bin = path.join(dir, 'bin');
      fs.mkdirSync(bin);
      for (const cmd of ['cdktf', 'curl', 'terraform']) {
        fs.writeFileSync(path.join(bin, cmd), `#!/bin/sh\nprintf '%s\\n' "${cmd}" "$@" >> ${JSON.stringify(path.join(dir, 'calls'))}\n`, { mode: 0o755 });
      }
      // terraform also answers `output -raw <the REST endpoint output>` as the state would: with the endpoint of section 1.
      fs.appendFileSync(path.join(bin, 'terraform'), 'if [ "$2 $3 $4" = "output -raw qdrant_prod_eu_rest_endpoint" ]; then printf %s https://xn--bcher-kva.example:6333; fi\n');
      // All in one shell, as a user pastes them one after the other (section 5 exports what its curl lines read).
      const script = blocks.join('').split('\n').filter((l) => !l.startsWith('read ')).join('\n');
      execFileSync('bash', ['-c', script], { cwd: dir, env: { PATH: `${bin}:${process.env.PATH}`, QDRANT_API_KEY: 'k' }, stdio: 'ignore' });
      expect(fs.existsSync(marker)).toBe(false);
      const calls = fs.readFileSync(path.join(dir, 'calls'), 'utf8');
      expect(calls).toContain('cdktf\ndeploy\nprod$(>pwned);>pwned`>pwned`\n');
      // The shell lines of section 5 ask Terraform for the endpoint (in the stack's directory, pasted exactly), and curl uses it.
      expect(calls).toContain('terraform\n-chdir=cdktf.out/stacks/prod$(>pwned);>pwned`>pwned`\noutput\n-raw\nqdrant_prod_eu_rest_endpoint\n');
      expect(calls).toContain('https://xn--bcher-kva.example:6333/collections');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
