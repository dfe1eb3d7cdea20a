/**
 * The cluster address rule (assets/runtime/url.js), shared by the constructs and the checker.
 */
import { parseClusterUrl, showUrl } from '../../assets/runtime/url';

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
