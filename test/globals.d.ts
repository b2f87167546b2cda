// Jest's globals, typed from the @jest/globals jest already ships (no @types/jest needed).
import type * as jestGlobals from '@jest/globals';

declare global {
	const describe: typeof jestGlobals.describe;
	const test: typeof jestGlobals.test;
	const it: typeof jestGlobals.it;
	const expect: typeof jestGlobals.expect;
	const beforeAll: typeof jestGlobals.beforeAll;
	const beforeEach: typeof jestGlobals.beforeEach;
	const afterAll: typeof jestGlobals.afterAll;
	const afterEach: typeof jestGlobals.afterEach;
	const jest: typeof jestGlobals.jest;
}

export {};
