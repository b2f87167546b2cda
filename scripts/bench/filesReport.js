'use strict';
/** The files bench's section of BENCHMARKS.md (scripts/bench/files.js), and its splice into the file. */
const os = require('node:os');
const path = require('node:path');
const { spliceSection } = require('./soakReport');

const MB = 1024 * 1024;
const TITLE = '## Files: memory of sending and downloading attachments';

/** The goal of issue #44 for a workload: an absolute bound, or a multiple of the one file. */
function goalOf(workload) {
	if (workload.files > 1) return { bytes: 150 * MB, text: '≤ 150 MB' };
	const times = workload.upload === 'form' ? 3 : 1.5;
	return { bytes: times * workload.size, text: `≤ ${times}× the file` };
}

const growth = (r) => r.peak - r.start;
const mb = (bytes) => `${Math.round(bytes / MB)}`;
const times = (r, workload) =>
	workload.files === 1 ? ` (${(growth(r) / workload.size).toFixed(1)}×)` : '';

function filesSection(results, { started, compared }) {
	const core = require(path.join(require.resolve('n8n-core'), '../../package.json')).version;
	const loads = Object.values(results)
		.flat()
		.flatMap((row) => [row.before?.loadAverage, row.after.loadAverage])
		.filter((load) => load !== undefined);
	const lines = [TITLE, ''];
	lines.push(
		`Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench -- --only files${compared ? ` --compare ${compared.ref}` : ''}\` on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; Node ${process.version}, n8n-core ${core}; 1-minute load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} during the runs (the machine is shared).`,
		'',
		"The Messaging node through n8n-core's execution contexts against the sandbox on loopback (its own process), each workload in a fresh process. The input node stores the files first; as the Messaging node starts, garbage is collected and the peak mark reset: **start** is the RSS then, the figure is the peak RSS from there to the end of the run minus start (so n8n storing the input files is not counted, n8n storing the downloaded ones is). Files of random bytes. glibc's mmap threshold is fixed at 128 KB (\`MALLOC_MMAP_THRESHOLD_\`), so a large buffer is counted when it is made rather than fitted into memory the input node freed. Garbage counts until V8 collects it.",
	);
	if (compared) {
		lines.push(
			'',
			`**Before**: the package at \`${compared.ref}\` (${compared.commit.slice(0, 10)}), run right before the current build for each workload.`,
		);
	}
	for (const [mode, rows] of Object.entries(results)) {
		const label =
			mode === 'memory'
				? 'memory (`N8N_DEFAULT_BINARY_DATA_MODE=default`)'
				: "filesystem (n8n 2.40's default outside queue mode)";
		lines.push('', `Binary data mode: ${label}.`, '');
		lines.push(
			`| workload |${compared ? ' before: peak − start, MB | before: time, ms |' : ''} peak − start, MB | time, ms | start RSS, MB | goal | | load |`,
			`|---|${compared ? '---:|---:|' : ''}---:|---:|---:|---|---|---:|`,
		);
		for (const { name, workload, before, after } of rows) {
			const goal = goalOf(workload);
			const verdict = growth(after) <= goal.bytes ? 'met' : 'not met';
			const was = before ? ` ${mb(growth(before))}${times(before, workload)} | ${before.ms} |` : '';
			lines.push(
				`| ${name} |${was} ${mb(growth(after))}${times(after, workload)} | ${after.ms} | ${mb(after.start)} | ${goal.text} | ${verdict} | ${after.loadAverage.toFixed(2)} |`,
			);
		}
	}
	lines.push(
		'',
		'What the figures hold, and where the goals are not met: [docs/files.md](docs/files.md#memory).',
		'',
	);
	return lines.join('\n');
}

/** BENCHMARKS.md with the files section replaced (or added before the trigger's section, else at the end). */
function spliceFiles(existing, section) {
	return spliceSection(existing, TITLE, section, '## Trigger poll');
}

module.exports = { filesSection, spliceFiles };
