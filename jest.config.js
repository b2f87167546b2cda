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
	// A worker's heap grows with every file (each loads n8n-core afresh, and not all of it is freed) to ~600 MB,
	// which takes ~150 ms to exit: past jest's 500 ms grace on a busy machine. Recycled above 300 MB: ~50 ms.
	workerIdleMemoryLimit: '300MB',
};
