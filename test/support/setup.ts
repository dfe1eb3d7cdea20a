import { Testing } from 'cdktf';

// Registers cdktf's Jest matchers (toHaveResourceWithProperties, toBeValidTerraform, ...).
Testing.setupJest();
