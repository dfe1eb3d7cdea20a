'use strict';
// Node API of the checker: require('cdktf-qdrant-cluster-access/assets/checker').
module.exports = require('./check.js');
