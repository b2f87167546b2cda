'use strict';
/**
 * This package packed, and installed into an n8n user folder the way n8n's community-package installer leaves it
 * (package mode, no peer dependencies).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./n8n-runtime');

const PACKAGE_NAME = 'n8n-nodes-messaging';

/** `npm pack` of the built package; returns the tarball path. */
function packPackage(outDir) {
	fs.mkdirSync(outDir, { recursive: true });
	const output = execFileSync(
		'npm',
		['pack', '--json', '--pack-destination', outDir, '--loglevel=error'],
		{
			cwd: ROOT,
			encoding: 'utf8',
		},
	);
	const [{ filename, files }] = JSON.parse(output);
	return { tarball: path.join(outDir, filename), files: files.map((f) => f.path) };
}

/**
 * Puts the packed package where n8n loads community packages from, as n8n's installer leaves it:
 * the package alone, without its peer dependency n8n-workflow (n8n provides that).
 */
function installPackage(userFolder, tarball) {
	const target = path.join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
	fs.rmSync(target, { recursive: true, force: true });
	fs.mkdirSync(target, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
	addInstalledDependency(userFolder, PACKAGE_NAME, `file:${tarball}`);
	return target;
}

/** A node package from a folder (the benchmark's floor node), installed beside the package. */
function installFolderPackage(userFolder, folder) {
	const { name } = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
	const target = path.join(userFolder, '.n8n', 'nodes', 'node_modules', name);
	fs.rmSync(target, { recursive: true, force: true });
	fs.cpSync(folder, target, { recursive: true });
	addInstalledDependency(userFolder, name, `file:${folder}`);
	return target;
}

function addInstalledDependency(userFolder, name, spec) {
	const file = path.join(userFolder, '.n8n', 'nodes', 'package.json');
	const manifest = fs.existsSync(file)
		? JSON.parse(fs.readFileSync(file, 'utf8'))
		: { name: 'installed-nodes', private: true, dependencies: {} };
	manifest.dependencies = { ...manifest.dependencies, [name]: spec };
	fs.writeFileSync(file, JSON.stringify(manifest, null, 2));
}

module.exports = { PACKAGE_NAME, packPackage, installPackage, installFolderPackage };
