module.exports = {
	testEnvironment: 'node',
	testMatch: ['<rootDir>/test/**/*.test.js'],
	// The long property and scale runs: `npm run test:long` (CI runs both).
	testPathIgnorePatterns: ['/node_modules/', '\\.long\\.test\\.js$'],
	modulePathIgnorePatterns: [
		'<rootDir>/.n8n-runtime',
		'<rootDir>/.toolchain',
		'<rootDir>/.demo',
		'<rootDir>/.e2e',
		'<rootDir>/.compat',
	],
	testTimeout: 120_000,
	maxWorkers: 2,
};
