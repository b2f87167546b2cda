/**
 * The node's resources, and what is derived from their operations so that it is written once: the
 * subtitle (each operation option's action sentence) and the tool's Description (each operation file's
 * `toolDescription`).
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { toolDescriptionProperty } from '../descriptions/tool';
import * as conversation from './conversation';
import * as message from './message';
import * as service from './service';

const resources = { message, conversation, service };

type Resource = keyof typeof resources;

function byResource<T>(value: (resource: (typeof resources)[Resource]) => T): Record<Resource, T> {
	const entries = Object.entries(resources).map(([name, resource]) => [name, value(resource)]);
	return Object.fromEntries(entries) as Record<Resource, T>;
}

/** Each operation's action sentence ("Send a message"), by value, from the resource's Operation options. */
function actions(description: INodeProperties[]): Record<string, string> {
	const operation = description.find((property) => property.name === 'operation');
	const options = (operation?.options ?? []) as INodePropertyOptions[];
	return Object.fromEntries(options.map((option) => [String(option.value), option.action ?? '']));
}

export const TOOL_DESCRIPTIONS = byResource((resource) => resource.toolDescriptions);

export const toolDescription = toolDescriptionProperty(TOOL_DESCRIPTIONS);

/** The chosen operation's action sentence under the node's name. Spaced: a `}}` inside would end the expression early. */
export const subtitle = `={{ ${JSON.stringify(
	byResource((resource) => actions(resource.description)),
	null,
	1,
)}[$parameter["resource"]]?.[$parameter["operation"]] }}`;
