/**
 * The cluster address rule (assets/runtime/url.js), shared by the constructs and the checker.
 */
import * as path from 'node:path';
import { parseClusterUrl, showUrl } from '../../assets/runtime/url';
import { runNode } from '../../tools/testing/run-node';

describe('a host whose lower case differs between JavaScript and the URL parser (a final capital sigma)', () => {
  test.each(['https://ΣΑΣ.gr', 'https://σας.gr'])('%s is accepted', (url) => {
    expect(parseClusterUrl(url).problems).toEqual([]);
  });
});

describe('accepted addresses', () => {
  test.each([
    ['https://abc-123.eu-central-1-0.aws.cloud.qdrant.io', { host: 'abc-123.eu-central-1-0.aws.cloud.qdrant.io', explicitPort: undefined }],
    ['https://ABC.Example.com:6333/', { host: 'abc.example.com', explicitPort: 6333, origin: 'https://abc.example.com' }],
    ['https://bücher.example', { host: 'xn--bcher-kva.example', origin: 'https://xn--bcher-kva.example' }],
    ['https://10.0.0.7:443', { host: '10.0.0.7', explicitPort: 443 }],
    ['https://[2001:db8::1]:6333', { host: '2001:db8::1', hostForUrl: '[2001:db8::1]', origin: 'https://[2001:db8::1]' }],
    ['http://127.0.0.1:8080', { protocol: 'http:', host: '127.0.0.1' }],
    ['http://localhost', { protocol: 'http:', host: 'localhost' }],
    ['http://[::1]:6333', { protocol: 'http:', host: '::1' }],
    ['https://BÜCHER.Example', { host: 'xn--bcher-kva.example' }],
    ['https://xn--bcher-kva.example', { host: 'xn--bcher-kva.example' }],
    ['https://İstanbul.tr', { host: 'xn--istanbul-o0e.tr' }],
  ])('%s', (url, expected) => {
    const parsed = parseClusterUrl(url);
    expect(parsed.problems).toEqual([]);
    expect(parsed).toMatchObject(expected);
  });
});

describe('refused addresses: nothing a shell or Terraform would read specially, no silent repair', () => {
  test.each([
    ['https://x${uuid()}.example.com', /Terraform would evaluate/],
    ['https://x%{if}y.example.com', /Terraform would evaluate/],
    ['https://x$(touch f).example.com', /whitespace or a control character/],
    ['https://x$(touch).example.com', /not a DNS name/],
    ['https://x`id`.example.com', /not a DNS name/],
    ['https://a;b.example.com', /not a DNS name/],
    ["https://a'b.example.com", /not a DNS name/],
    ['https://a"b.example.com', /not a DNS name/],
    ['https://a|b.example.com', /not a DNS name/],
    ['https://a&b.example.com', /not a DNS name/],
    ['https://a\\b.example.com', /backslash/],
    ['https://a.example.com\n', /whitespace or a control character/],
    ['https:host:7443', /is not written as https:\/\/<host>\[:<port>\]/],
    ['https:/host', /is not written as https:\/\//],
    ['https:///host', /is not written as https:\/\//],
    ['https://h.example:06333', /without leading zeros/],
    ['https://h.example:65536', /a port is a number in 1-65535/],
    ['https://h.example:', /a port is a number/],
    ['https://h.example.', /not a DNS name/],
    ['https://h..example', /not a DNS name/],
    ['https://-h.example', /not a DNS name/],
    ['https://127.1', /not a valid IPv4 address/],
    ['https://300.1.1.1', /not a valid IPv4 address/],
    ['https://[fe80::1%25eth0]', /not an IPv6 address/],
    ['http://example.com', /uses http:\/\/ to a host that is not loopback/],
    // Only 127.0.0.0/8, localhost and ::1 are loopback (the key would travel in clear otherwise).
    ['http://10.0.0.5', /uses http:\/\/ to a host that is not loopback/],
    ['http://128.0.0.1:6333', /uses http:\/\/ to a host that is not loopback/],
    ['http://evillocalhost', /uses http:\/\/ to a host that is not loopback/],
    ['http://localhost.evil.example', /uses http:\/\/ to a host that is not loopback/],
    ['http://[::2]', /uses http:\/\/ to a host that is not loopback/],
    ['ftp://example.com', /has scheme "ftp"/],
    ['example.com', /has no scheme/],
    ['', /is empty/],
  ])('%j', (url, message) => {
    const problems = parseClusterUrl(url).problems;
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join('; ')).toMatch(message);
  });

  test('a value that is not a string is refused, not thrown on', () => {
    expect(parseClusterUrl(42).problems).toEqual(['is not a string; expected https://<host> or https://<host>:<port>']);
  });

  test('credentials, path, query and fragment are each named; the password and the query are never shown', () => {
    const url = 'https://user:hunter2@h.example/p?api-key=abc#f';
    expect(parseClusterUrl(url).problems).toEqual([
      'holds credentials (user:pass@); remove them, the API key is passed separately',
      'has a path "/p"; give only the cluster address, e.g. "https://h.example"',
      'has a query (not shown: it may hold a key); remove it, the API key is passed separately',
      'has a fragment ("#..."); remove it',
    ]);
    expect(showUrl(url)).toBe('"https://***@h.example/p?***#f"');
  });
});

describe('a password with "/" or "#", or an "@" in a path or query, is never shown', () => {
  const PASSWORD = 'Zm9v/YmFyYmF6cXV4';
  const CREDENTIALS = 'holds credentials (user:pass@); remove them, the API key is passed separately';
  // user:pa/ss@host and host/?k=a@b cannot be told apart, and either may hold a secret.
  const AMBIGUOUS = 'holds an "@" after a "/", "?" or "#": credentials (user:pass@) or a path or query (not shown: it may hold a key); ' +
    'remove them, the API key is passed separately; expected https://<host> or https://<host>:<port>';
  test.each([
    [`https://proxyuser:${PASSWORD}@qdrant.example.com:6333`, '"https://***"', 'Zm9v', AMBIGUOUS],
    ['https://admin:s3cr#tPassw0rd@host.example', '"https://***"', 's3cr', AMBIGUOUS],
    ['https://admin:pa?ss/wo#rd@host.example/p', '"https://***"', 'pa?ss', AMBIGUOUS],
    // A key in a query, holding an "@": its tail is not shown either.
    ['https://h.example:6333/?api-key=my@SecretKeyTail123', '"https://***"', 'SecretKeyTail', AMBIGUOUS],
    ['https://admin:s3cretPassw0rd@host.example', '"https://***@host.example"', 's3cret', CREDENTIALS],
    ['https:admin:s3cretPassw0rd@host.example', '"https:***@host.example"', 's3cret',
      'is not written as https://<host>[:<port>] (the "//" after the scheme is missing or doubled)'],
    ['admin:s3cretPassw0rd@host.example', '"***@host.example"', 's3cret', 'has scheme (not shown: it may be a key); expected https://<host> or https://<host>:<port>'],
    [`ftp://proxyuser:${PASSWORD}@host.example`, '"***"', 'YmFy', 'has scheme "ftp"; expected https://<host> or https://<host>:<port>'],
  ])('%s', (url, shown, part, first) => {
    const problems = parseClusterUrl(url).problems;
    expect(problems[0]).toBe(first);
    expect(showUrl(url)).toBe(shown);
    const text = `${showUrl(url)} ${problems.join('; ')}`;
    expect(text).not.toContain(part);
    expect(text).not.toContain('admin');
    expect(text).not.toContain('proxyuser');
  });

  test('plain credentials: the host and port after the "@" are still read', () => {
    expect(parseClusterUrl('https://proxyuser:s3cret@qdrant.example.com:6333')).toMatchObject({
      problems: ['holds credentials (user:pass@); remove them, the API key is passed separately'],
      host: 'qdrant.example.com',
      explicitPort: 6333,
    });
  });

  test('the checker CLI prints one line about it and none of the password', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, QDRANT_API_KEY: 'unrelated-env-key-51c0de' };
    const cli = path.join(__dirname, '..', '..', 'assets', 'checker', 'cli.js');
    const r = await runNode([cli, 'check', '--url', `https://proxyuser:${PASSWORD}@qdrant.example.com:6333`], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`qdrant-cluster-access: error: url "https://***" ${AMBIGUOUS}\n`);
    expect(r.stdout + r.stderr).not.toContain('Zm9v');
    expect(r.stdout + r.stderr).not.toContain('YmFy');
  });
});

describe('a host is never rewritten silently (only lower case and punycode)', () => {
  test.each([
    ['https://ex%61mple.com', 'has host "ex%61mple.com", which holds "%" (percent-encoding); write the host itself, without %-escapes'],
    ['http://loc%61lhost:6333', 'has host "loc%61lhost", which holds "%" (percent-encoding); write the host itself, without %-escapes'],
    ['https://exa\u200bmple.com', 'has host "exa\\u200bmple.com", which the URL parser would read as "example.com"; write the host as "example.com" if that is the one you mean'],
    ['https://exa\u00admple.com', 'has host "exa\\u00admple.com", which the URL parser would read as "example.com"; write the host as "example.com" if that is the one you mean'],
    ['https://ｅｘａｍｐｌｅ.com', 'has host "ｅｘａｍｐｌｅ.com", which the URL parser would read as "example.com"; write the host as "example.com" if that is the one you mean'],
    ['https://a\u3002example.com', 'has host "a\u3002example.com", which the URL parser would read as "a.example.com"; write the host as "a.example.com" if that is the one you mean'],
    ['https://0x7f.1', 'has host "0x7f.1", which the URL parser would read as "127.0.0.1"; write the host as "127.0.0.1" if that is the one you mean'],
  ])('%j', (url, problem) => {
    const parsed = parseClusterUrl(url);
    expect(parsed.problems).toEqual([problem]);
    expect(parsed.host).toBeUndefined();
  });
});

describe('a key put into the path, fragment or port of an address, or after whitespace, is not shown (a long tail is masked)', () => {
  const KEY = 'canary-url-Zq8vR2mX9pL4tW7yB3nK6cF1';
  test.each([
    [`https://127.0.0.1:6333/${KEY}`, '"https://127.0.0.1:6333/***"', 'has a path "/***"; give only the cluster address, e.g. "https://127.0.0.1:6333"'],
    [`https://h.example/collections/${KEY}/points`, '"https://h.example/***"', 'has a path "/***"; give only the cluster address, e.g. "https://h.example"'],
    // A base64 key holds "/": no segment is long, the path is.
    ['https://h.example:6333/Zk9x+R2t3/bE5wQ2h+Yb1dVaa/c2VjcmV0a2V5=', '"https://h.example:6333/***"', 'has a path "/***"; give only the cluster address, e.g. "https://h.example:6333"'],
    [`https://h.example#${KEY}`, '"https://h.example#***"', 'has a fragment ("#..."); remove it'],
    [`https://h.example:${KEY}`, '"https://h.example:***"', 'has port (not shown: it may be a key); a port is a number in 1-65535 without leading zeros'],
    [`https://h.example:${KEY}/x`, '"https://h.example:***"', 'has a path "/x"; give only the cluster address, e.g. "https://h.example:<port>"'],
    [`https://h.example ${KEY}`, '"https://h.example ***"', 'holds whitespace or a control character; expected https://<host> or https://<host>:<port>'],
  ])('%s', (url, shown, first) => {
    const problems = parseClusterUrl(url).problems;
    expect([showUrl(url), problems[0]]).toEqual([shown, first]);
    expect(`${showUrl(url)} ${problems.join('; ')}`).not.toContain(KEY.slice(0, 12));
  });

  test('the bound: 20 characters after the host (separators aside) are shown, 21 are masked, in a path and as a port', () => {
    expect(showUrl(`https://h.example/${'b'.repeat(10)}/${'c'.repeat(10)}`)).toBe(`"https://h.example/${'b'.repeat(10)}/${'c'.repeat(10)}"`);
    expect(showUrl(`https://h.example/${'b'.repeat(10)}/${'c'.repeat(11)}`)).toBe('"https://h.example/***"');
    expect(parseClusterUrl(`https://h.example:${'1'.repeat(20)}`).problems[0]).toBe(`has port "${'1'.repeat(20)}"; a port is a number in 1-65535 without leading zeros`);
    expect(parseClusterUrl(`https://h.example:${'1'.repeat(21)}`).problems[0]).toBe('has port (not shown: it may be a key); a port is a number in 1-65535 without leading zeros');
  });

  test('short parts, a long host and a short port are still shown', () => {
    const url = 'https://0a1b2c3d-4e5f-6789-abcd-ef0123456789.eu-central-1-0.aws.cloud.qdrant.io:6333/collections#top';
    expect(showUrl(url)).toBe(JSON.stringify(url));
    expect(parseClusterUrl('https://h.example:0x10').problems).toEqual(['has port "0x10"; a port is a number in 1-65535 without leading zeros']);
  });
});
