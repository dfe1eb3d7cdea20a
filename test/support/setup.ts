// The matchers' types (toHaveResourceWithProperties, toBeValidTerraform, ...) for every test file.
import 'cdktf/lib/testing/adapters/jest';
import { Testing } from 'cdktf';

// Registers cdktf's Jest matchers.
Testing.setupJest();
