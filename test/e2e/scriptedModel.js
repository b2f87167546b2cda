'use strict';
/**
 * A scripted OpenAI-compatible chat model for end-to-end runs of n8n's AI Agent (no real model is
 * reachable here). It answers POST /v1/chat/completions (n8n's OpenAI Chat Model with "Use Responses API"
 * off) from a script: each turn picks a tool by a test on its name and gives its arguments, or ends with a
 * text. It records every request, so a test asserts what the model was offered (tools, descriptions,
 * schemas) and what came back from each tool call.
 */
const http = require('node:http');

/**
 * `script(request, turn)` returns { tool: (name) => boolean, args } for a tool call, or { text } to end.
 * `turn` counts the requests of the current conversation (one agent run), from 0.
 */
async function startScriptedModel() {
	const requests = [];
	let script = () => ({ text: 'nothing scripted' });
	let calls = 0;
	const server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (d) => (body += d));
		req.on('end', () => {
			const answer = (status, payload) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(payload));
			};
			if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url)) {
				return answer(404, { error: { message: `not scripted: ${req.method} ${req.url}` } });
			}
			const request = JSON.parse(body);
			requests.push(request);
			// The turn within the agent run: one tool result per earlier turn of this run.
			const turn = request.messages.filter((m) => m.role === 'assistant').length;
			let step;
			try {
				step = script(request, turn);
			} catch (error) {
				step = { text: `script error: ${error.message}` };
			}
			const message = { role: 'assistant', content: step.text ?? null };
			if (step.tool) {
				const tool = (request.tools ?? []).find((t) => step.tool(t.function.name));
				if (!tool) {
					message.content = `no offered tool matched (offered: ${(request.tools ?? []).map((t) => t.function.name).join(', ')})`;
				} else {
					calls += 1;
					message.tool_calls = [
						{
							id: `call_${calls}`,
							type: 'function',
							function: { name: tool.function.name, arguments: JSON.stringify(step.args) },
						},
					];
				}
			}
			const choice = {
				index: 0,
				message,
				finish_reason: message.tool_calls ? 'tool_calls' : 'stop',
			};
			const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
			if (request.stream) {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				const delta = { role: 'assistant', content: message.content ?? '' };
				if (message.tool_calls) {
					delta.tool_calls = message.tool_calls.map((c, index) => ({ index, ...c }));
				}
				const chunk = (choices) =>
					`data: ${JSON.stringify({ id: `chatcmpl-${calls}`, object: 'chat.completion.chunk', created: 0, model: request.model, choices })}\n\n`;
				res.write(chunk([{ index: 0, delta, finish_reason: null }]));
				res.write(chunk([{ index: 0, delta: {}, finish_reason: choice.finish_reason }]));
				res.end('data: [DONE]\n\n');
				return undefined;
			}
			return answer(200, {
				id: `chatcmpl-${requests.length}`,
				object: 'chat.completion',
				created: Math.floor(Date.now() / 1000),
				model: request.model,
				choices: [choice],
				usage,
			});
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${server.address().port}/v1`;
	return {
		url,
		requests,
		/** Replaces the script; earlier requests stay recorded. */
		play(next) {
			script = next;
		},
		/** The tool results (role "tool") of a request, by the called tool's name. */
		toolResults(request) {
			const names = new Map();
			for (const m of request.messages) {
				for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
			}
			return request.messages
				.filter((m) => m.role === 'tool')
				.map((m) => ({ name: names.get(m.tool_call_id), content: m.content }));
		},
		async stop() {
			server.closeAllConnections?.();
			await new Promise((resolve) => server.close(() => resolve()));
		},
	};
}

module.exports = { startScriptedModel };
