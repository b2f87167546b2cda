'use strict';
/**
 * Benchmark only (variant F of `npm run bench`): the least any node in n8n can do for "one GET per item":
 * one parameter expression per item (the URL) and one `this.helpers.httpRequest`, with a literal header
 * (no credential work), no validation, no retries, no error handling, N requests in flight. What n8n
 * itself costs per item; the Messaging node (A) is measured against it.
 */
class BenchFloor {
	description = {
		displayName: 'Bench Floor',
		name: 'benchFloor',
		group: ['transform'],
		version: 1,
		description: 'Benchmark only',
		defaults: { name: 'Bench Floor' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			{ displayName: 'Method', name: 'method', type: 'string', default: 'GET' },
			{ displayName: 'Body', name: 'body', type: 'string', default: '' },
			{ displayName: 'Authorization', name: 'authorization', type: 'string', default: '' },
			{ displayName: 'In Flight', name: 'inFlight', type: 'number', default: 8 },
		],
	};

	async execute() {
		const items = this.getInputData();
		const output = new Array(items.length);
		const authorization = this.getNodeParameter('authorization', 0);
		const method = this.getNodeParameter('method', 0);
		const body = this.getNodeParameter('body', 0);
		let next = 0;
		const worker = async () => {
			while (next < items.length) {
				const i = next++;
				const url = this.getNodeParameter('url', i);
				const headers = { Authorization: authorization };
				if (body) headers['Content-Type'] = 'application/x-www-form-urlencoded';
				const response = await this.helpers.httpRequest({
					method,
					url,
					headers,
					body: body || undefined,
					json: true,
				});
				output[i] = { json: response, pairedItem: { item: i } };
			}
		};
		await Promise.all(Array.from({ length: this.getNodeParameter('inFlight', 0) }, worker));
		return [output];
	}
}

module.exports = { BenchFloor };
