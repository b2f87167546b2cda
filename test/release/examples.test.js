'use strict';
// The example workflows teach what a new node does: each uses our nodes at their newest version (read from
// dist/), says in a sticky note what it shows and what to replace, and reads only fields its sources output.
// An example may keep an older version of a node when a sticky note says why, in the form
// "<node name> is pinned to version <v> because <reason>".
const fs = require('node:fs');
const path = require('node:path');
const { NodeHelpers } = require('n8n-workflow');

const ROOT = path.resolve(__dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');
const { Messaging } = require(path.join(DIST, 'nodes/Messaging/Messaging.node.js'));
const { MessagingTrigger } = require(
	path.join(DIST, 'nodes/MessagingTrigger/MessagingTrigger.node.js'),
);
const simplify = require(path.join(DIST, 'nodes/shared/simplify/records.js'));
const OPERATIONS = {
	message: require(path.join(DIST, 'nodes/Messaging/actions/message/index.js')).operations,
	conversation: require(path.join(DIST, 'nodes/Messaging/actions/conversation/index.js'))
		.operations,
};
const { Store } = require(path.join(ROOT, 'sandbox/store.js'));

const PACKAGE = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).name;
const STICKY = 'n8n-nodes-base.stickyNote';
/** n8n's nodes that hand their input items on unchanged (to one output or another). */
const PASS_THROUGH = new Set(['n8n-nodes-base.filter', 'n8n-nodes-base.if', 'n8n-nodes-base.noOp']);

const messaging = new Messaging();
const trigger = new MessagingTrigger();
const newest = (versions) => Math.max(...[versions].flat());
/** Our node types (n8n adds the AI tool variants of the Messaging node) and the version a new node gets. */
const OURS = {
	[`${PACKAGE}.messaging`]: newest(messaging.description.version),
	[`${PACKAGE}.messagingTool`]: newest(messaging.description.version),
	[`${PACKAGE}.messagingHitlTool`]: newest(messaging.description.version),
	[`${PACKAGE}.messagingTrigger`]: newest(Object.keys(trigger.nodeVersions).map(Number)),
};

/** The fields of each output shape: Simplify's from the code, the service's record as the sandbox sends it. */
const SHAPES = (() => {
	const context = { unit: 'auto', own: [] };
	const store = new Store();
	store.addContact({ id: 'ct_a' });
	const conversation = store.createConversation({ contact_id: 'ct_a' });
	const raw = store.sendMessage('ct_a', { conversation_id: conversation.id, message: 'x' });
	const message = Object.keys(simplify.simplifyMessage({}, context));
	return {
		message,
		sentMessage: [...message, 'alreadySent'],
		conversation: Object.keys(simplify.simplifyConversation({}, context)),
		// The trigger's record: the service's, plus what a redelivery and a gap add.
		rawTriggerMessage: [
			...Object.keys(raw),
			'redelivery',
			'redeliveryReason',
			'attempt',
			'warning',
		],
	};
})();

/** The parameters n8n resolves for a node (its defaults at its version filled in). */
/**
 * @param {import('n8n-workflow').INode} node
 * @param {import('n8n-workflow').INodeTypeDescription} description
 * @returns {Record<string, any>} the node's parameters, defaults filled in
 */
function resolvedParameters(node, description) {
	return NodeHelpers.getNodeParameters(
		description.properties,
		node.parameters,
		true,
		false,
		node,
		description,
	);
}

/**
 * What a node of ours outputs, as far as an expression can rely on it: { kind, fields } or undefined.
 * @param {import('n8n-workflow').INode} node
 */
function outputShape(node) {
	if (node.type === `${PACKAGE}.messagingTrigger`) {
		const description = trigger.nodeVersions[node.typeVersion]?.description;
		if (!description) return undefined;
		const { events = ['newMessage'], options = {} } = resolvedParameters(node, description);
		if (events.length !== 1 || events[0] !== 'newMessage') return undefined;
		return options.simplify === true
			? { kind: 'simplified message', fields: SHAPES.message }
			: { kind: "the service's message record", fields: SHAPES.rawTriggerMessage };
	}
	if (node.type !== `${PACKAGE}.messaging`) return undefined;
	const parameters = resolvedParameters(node, messaging.description);
	const as = OPERATIONS[parameters.resource]?.[parameters.operation]?.simplifyAs;
	if (!as || parameters.simplify !== true) return undefined;
	if (as === 'reply') return { kind: 'simplified reply', fields: null, nested: SHAPES.message };
	return { kind: `simplified ${as}`, fields: SHAPES[as] };
}

/** Every expression of a node's parameters (the strings starting with "="). */
function expressionsOf(value, out = []) {
	if (typeof value === 'string' && value.startsWith('=')) out.push(value);
	else if (value && typeof value === 'object')
		for (const v of Object.values(value)) expressionsOf(v, out);
	return out;
}

/** Every string of a node's parameters. */
function stringsOf(value, out = []) {
	if (typeof value === 'string') out.push(value);
	else if (value && typeof value === 'object')
		for (const v of Object.values(value)) stringsOf(v, out);
	return out;
}

const FIELD = String.raw`\??\.([A-Za-z_$][\w$]*)(?:\??\.([A-Za-z_$][\w$]*))?`;
/** The field paths an expression reads: [{ from: 'input' | node name, path: [field, subfield?] }]. */
function fieldReads(expression) {
	const reads = [];
	const add = (from, m, first) => reads.push({ from, path: [m[first], m[first + 1]] });
	for (const m of expression.matchAll(new RegExp(String.raw`\$json${FIELD}`, 'g')))
		add('input', m, 1);
	for (const m of expression.matchAll(
		new RegExp(String.raw`\$input\.(?:item|first\(\)|last\(\))\.json${FIELD}`, 'g'),
	))
		add('input', m, 1);
	for (const m of expression.matchAll(
		new RegExp(
			String.raw`\$\(\s*['"]([^'"]+)['"]\s*\)\.(?:item|first\(\)|last\(\)|itemMatching\([^)]*\))\.json${FIELD}`,
			'g',
		),
	))
		reads.push({ from: m[1], path: [m[2], m[3]] });
	return reads;
}

/** The nodes whose main output feeds `name`, looked through nodes that pass their items on. */
function sourcesOf(workflow, name, seen = new Set()) {
	const out = [];
	for (const [from, outputs] of Object.entries(workflow.connections ?? {})) {
		const feeds = (outputs.main ?? []).some((targets) =>
			(targets ?? []).some((t) => t.node === name),
		);
		if (!feeds || seen.has(from)) continue;
		seen.add(from);
		const node = workflow.nodes.find((n) => n.name === from);
		if (node && PASS_THROUGH.has(node.type)) out.push(...sourcesOf(workflow, from, seen));
		else if (node) out.push(node);
	}
	return out;
}

/** What is wrong with one example, one sentence each. */
function problemsOf(workflow) {
	const problems = [];
	const notes = workflow.nodes.filter((n) => n.type === STICKY);
	const noteText = notes.map((n) => String(n.parameters?.content ?? '')).join('\n');
	const nodes = workflow.nodes.filter((n) => n.type !== STICKY);
	if (!notes.some((n) => /^##\s+\S/m.test(String(n.parameters?.content ?? ''))))
		problems.push('has no sticky note with a "## " heading saying what it shows');
	const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	for (const node of nodes) {
		const latest = OURS[node.type];
		if (latest !== undefined && node.typeVersion !== latest) {
			const reason = new RegExp(
				`${escape(node.name)}\\W{0,4} is pinned to version ${escape(String(node.typeVersion))} because \\S`,
			);
			if (!reason.test(noteText))
				problems.push(
					`"${node.name}" is ${node.type} version ${node.typeVersion}, not ${latest} (the newest), and no sticky note says "${node.name} is pinned to version ${node.typeVersion} because …"`,
				);
		}
		for (const credential of Object.values(node.credentials ?? {}))
			if (!noteText.includes(credential.name))
				problems.push(
					`the sticky note does not name the credential "${credential.name}" to replace`,
				);
		for (const id of new Set(
			stringsOf(node.parameters).flatMap((s) => s.match(/\b(?:conv|msg|ct|grp)_\w+/g) ?? []),
		))
			if (!noteText.includes(id))
				problems.push(
					`"${node.name}" uses the id ${id}, which the sticky note does not name to replace`,
				);
		for (const expression of expressionsOf(node.parameters)) {
			for (const { from, path: fieldPath } of fieldReads(expression)) {
				const sources =
					from === 'input' ? sourcesOf(workflow, node.name) : nodes.filter((n) => n.name === from);
				for (const source of sources) {
					const shape = outputShape(source);
					if (!shape) continue;
					const [field, sub] = fieldPath;
					const wrong = shape.fields
						? !shape.fields.includes(field)
						: ['message', 'contact'].includes(field) ||
							(['sent', 'reply'].includes(field) &&
								sub !== undefined &&
								!shape.nested.includes(sub));
					if (wrong)
						problems.push(
							`"${node.name}" reads ${fieldPath.filter(Boolean).join('.')} of "${source.name}", whose output (${shape.kind}) has no such field`,
						);
				}
			}
		}
	}
	return [...new Set(problems)];
}

const EXAMPLES = path.join(ROOT, 'examples');
const files = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));

describe('example workflows', () => {
	test('there are examples', () => {
		expect(files.length).toBeGreaterThanOrEqual(11);
	});

	test.each(files)('%s parses as a workflow, its connections between its own nodes', (file) => {
		const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
		expect(typeof workflow.name).toBe('string');
		const names = workflow.nodes.map((n) => n.name);
		expect(new Set(names).size).toBe(names.length);
		expect(new Set(workflow.nodes.map((n) => n.id)).size).toBe(names.length);
		for (const [from, outputs] of Object.entries(workflow.connections)) {
			expect(names).toContain(from);
			for (const targets of Object.values(outputs).flat())
				for (const t of targets ?? []) expect(names).toContain(t.node);
		}
	});

	test.each(files)(
		'%s: newest node versions, a sticky note naming what to replace, fields its sources output',
		(file) => {
			const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
			expect(problemsOf(workflow)).toEqual([]);
		},
	);
});

describe('the example rules catch', () => {
	const credentials = { messagingApi: { id: 'c', name: 'Messaging (sandbox)' } };
	const node = (name, type, typeVersion, parameters = {}) => ({
		id: name,
		name,
		type: `${PACKAGE}.${type}`,
		typeVersion,
		position: [0, 0],
		parameters,
		credentials,
	});
	const note = (content) => ({
		id: 'note',
		name: 'Note',
		type: STICKY,
		typeVersion: 1,
		position: [0, 0],
		parameters: { content },
	});
	const filterOn = (expression) => ({
		id: 'f',
		name: 'Filter',
		type: 'n8n-nodes-base.filter',
		typeVersion: 2.3,
		position: [0, 0],
		parameters: { conditions: { conditions: [{ leftValue: expression }] } },
	});
	const chain = (...nodes) => ({
		name: 'x',
		nodes,
		connections: Object.fromEntries(
			nodes
				.slice(1, -1)
				.map((n, i) => [n.name, { main: [[{ node: nodes[i + 2].name, type: 'main', index: 0 }]] }]),
		),
	});
	const NOTE = note('## Shows\nReplace Messaging (sandbox).');
	const getMany = (version) =>
		node('Recent', 'messaging', version, { resource: 'message', operation: 'getAll' });
	const react = node('React', 'messaging', 2, {
		resource: 'message',
		operation: 'addReaction',
		messageId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
	});

	test("react-to-keyword rebuilt with a new node: the filter on $json.message, which Simplify's output lacks", () => {
		expect(problemsOf(chain(NOTE, getMany(2), filterOn('={{ $json.message }}'), react))).toEqual([
			'"Filter" reads message of "Recent", whose output (simplified message) has no such field',
		]);
		expect(problemsOf(chain(NOTE, getMany(2), filterOn('={{ $json.text }}'), react))).toEqual([]);
	});

	test('$json.contact through an IF, and a named node read by $(…)', () => {
		const reply = node('Reply', 'messaging', 2, {
			resource: 'message',
			operation: 'send',
			text: "={{ $json.contact.username }} {{ $('Recent').item.json.created_at }}",
		});
		expect(problemsOf(chain(NOTE, getMany(2), filterOn('={{ true }}'), reply))).toEqual([
			'"Reply" reads contact.username of "Recent", whose output (simplified message) has no such field',
			'"Reply" reads created_at of "Recent", whose output (simplified message) has no such field',
		]);
	});

	test('the trigger: its record by default, Simplify on only when its option says so', () => {
		const reply = (field) =>
			node('Reply', 'messaging', 2, {
				resource: 'message',
				operation: 'send',
				text: `={{ $json.${field} }}`,
			});
		const newMessage = (options) => node('New', 'messagingTrigger', 2, { options });
		expect(problemsOf(chain(NOTE, newMessage({}), reply('message')))).toEqual([]);
		expect(problemsOf(chain(NOTE, newMessage({}), reply('text')))).toHaveLength(1);
		expect(problemsOf(chain(NOTE, newMessage({ simplify: true }), reply('text')))).toEqual([]);
		expect(problemsOf(chain(NOTE, newMessage({ simplify: true }), reply('message')))).toHaveLength(
			1,
		);
	});

	test("Send and Wait for Reply's simplified reply: reply.text, not reply.message", () => {
		const ask = node('Ask', 'messaging', 2, {
			resource: 'message',
			operation: 'sendAndWaitForReply',
		});
		const confirm = (expression) =>
			node('Confirm', 'messaging', 2, { resource: 'message', operation: 'send', text: expression });
		expect(problemsOf(chain(NOTE, ask, confirm('={{ $json.reply.message }}')))).toEqual([
			'"Confirm" reads reply.message of "Ask", whose output (simplified reply) has no such field',
		]);
		expect(
			problemsOf(chain(NOTE, ask, confirm('={{ $json.reply.text }} {{ $json.timedOut }}'))),
		).toEqual([]);
	});

	test('an older version, unless a sticky note says why', () => {
		expect(problemsOf(chain(NOTE, getMany(1), react))).toEqual([
			`"Recent" is ${PACKAGE}.messaging version 1, not 2 (the newest), and no sticky note says "Recent is pinned to version 1 because …"`,
		]);
		const pinned = note(
			'## Shows\nReplace Messaging (sandbox).\n**Recent** is pinned to version 1 because its raw records feed a spreadsheet.',
		);
		expect(problemsOf(chain(pinned, getMany(1), react))).toEqual([]);
	});

	test('no sticky note, a credential or a demo id it does not name', () => {
		const send = node('Send', 'messaging', 2, {
			resource: 'message',
			operation: 'send',
			conversationId: { __rl: true, mode: 'id', value: 'conv_00000001' },
			text: 'hi',
		});
		expect(problemsOf(chain(note('no heading'), send))).toEqual([
			'has no sticky note with a "## " heading saying what it shows',
			'the sticky note does not name the credential "Messaging (sandbox)" to replace',
			'"Send" uses the id conv_00000001, which the sticky note does not name to replace',
		]);
	});
});
