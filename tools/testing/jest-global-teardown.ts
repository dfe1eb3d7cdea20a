// Jest globalTeardown: remove the run's temp root, listing what the tests left in it (see ./jest-temp-root.ts).
import { teardown } from './jest-temp-root';

export default teardown;
