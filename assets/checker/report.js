'use strict';
/**
 * The checker's output lines and batch report, made from reports. Node built-ins only.
 */
const { safeLine } = require('../runtime/text.js');

/** The verdict words of a passing report, e.g. "key accepted, keys enforced, read-only as declared, gRPC ok". */
function verdict(report) {
  const parts = [report.enforcement === 'open' ? 'key not verified, cluster is open (allowed)' : 'key accepted, keys enforced'];
  const access = report.steps.find((s) => s.name === 'access');
  if (access && access.message) parts.push(access.message);
  if (report.steps.some((s) => s.name === 'grpc')) parts.push('gRPC ok');
  return parts.join(', ');
}

/**
 * The one-line summary printed by the CLI, e.g.
 *   ok   search-api → prod-eu  qdrant 1.18.3  key accepted, keys enforced  expires 2027-02-20 (in 90 days)  184 ms
 *   FAIL search-api → prod-eu  step key: key rejected (401 Invalid API key or JWT); check the key's clusters in the console (setup guide, section 2), set the variable again (setup guide, section 3), or create a new key  52 ms
 */
function formatReport(report) {
  if (!report.ok) return `FAIL ${report.label}  step ${report.failedStep}: ${report.reason}  ${report.durationMs} ms`;
  const expiry = report.steps.find((s) => s.name === 'expiry');
  const parts = [`ok   ${report.label}`];
  if (report.qdrantVersion) parts.push(`qdrant ${report.qdrantVersion}`);
  parts.push(verdict(report));
  if (expiry) parts.push(expiry.message);
  parts.push(`${report.durationMs} ms`);
  return parts.join('  ');
}

/** The warning lines of a report: `warn <label>  <text>`. */
function formatWarnings(report) {
  return report.warnings.map((w) => `warn ${report.label}  ${w}`);
}

/**
 * "FAIL 2 of 10 grants of key search-api failed: search-api → prod-us (step key), …", or undefined.
 * The labels are user text (--label, the grants): made one line without control characters.
 */
function formatSummary(result, keyLabel) {
  const failed = result.grants.filter((r) => !r.ok);
  if (failed.length === 0) return undefined;
  const of = keyLabel ? ` of key ${safeLine(keyLabel, [], 120)}` : '';
  return `FAIL ${failed.length} of ${result.grants.length} grant${result.grants.length === 1 ? '' : 's'}${of} failed: ` +
    failed.map((r) => `${safeLine(r.label, [], 120)} (step ${r.failedStep})`).join(', ');
}

/** The batch report of one key's reports (`expiresAt`: the key's expiry, a Date, or undefined). */
function summarize(reports, expiresAt) {
  return {
    ok: reports.every((r) => r.ok),
    expiresAt: expiresAt ? expiresAt.toISOString() : null,
    grants: reports,
    failed: reports.filter((r) => !r.ok).map((r) => r.label),
  };
}

module.exports = { formatReport, formatWarnings, formatSummary, summarize };
