'use strict';
// The checker's Node API (types in index.d.ts), for JavaScript and TypeScript users of the package:
// cdktf-qdrant-cluster-access/assets/checker.
const { checkClusterAccess, formatReport, formatWarnings, parseBaseUrl, UsageError } = require('./check.js');
const { checkMany, formatSummary } = require('./batch.js');
const { FAILURES } = require('./failures.js');

module.exports = { checkClusterAccess, checkMany, formatReport, formatWarnings, formatSummary, parseBaseUrl, UsageError, FAILURES };
