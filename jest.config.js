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
	// Each file loads n8n-core afresh: a worker's heap fills with the files before (garbage V8 has not collected
	// yet) up to ~550 MB, which takes ~140 ms to free at exit, past jest's 500 ms grace when the machine is busy.
	// Recycled above 300 MB, a worker exits in 20-70 ms.
	workerIdleMemoryLimit: '300MB',
};
