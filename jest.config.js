module.exports = {
	testEnvironment: 'node',
	testMatch: ['<rootDir>/test/**/*.test.js'],
	modulePathIgnorePatterns: ['<rootDir>/.n8n-runtime', '<rootDir>/.toolchain', '<rootDir>/.demo', '<rootDir>/.e2e'],
	testTimeout: 120_000,
	maxWorkers: 2,
};
