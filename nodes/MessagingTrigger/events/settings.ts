/** The events a version 2 trigger starts on, and their options, checked once at activation. */

export const TRIGGER_EVENTS = [
	'newMessage',
	'messageEdited',
	'reactionAdded',
	'reactionRemoved',
	'newConversation',
] as const;

export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

export interface EventSettings {
	events: TriggerEvent[];
	/** Edits and reactions are looked for on the newest this many messages of each check. */
	watchWindow: number;
	/** Group Bursts: quiet period and maximum wait, in seconds; undefined when off. */
	bursts?: { quietSeconds: number; maxWaitSeconds: number };
}

export const DEFAULT_WATCH_WINDOW = 20;

/** Version 1, and version 2's default. */
export const NEW_MESSAGES_ONLY: EventSettings = {
	events: ['newMessage'],
	watchWindow: DEFAULT_WATCH_WINDOW,
};
export const MAX_WATCH_WINDOW = 200;
export const MAX_BURST_WAIT_SECONDS = 3_600;

/** Only new messages, one item each: the shape and cost of version 2 before events existed. */
export function onlyNewMessages(settings: EventSettings): boolean {
	return settings.events.length === 1 && settings.events[0] === 'newMessage' && !settings.bursts;
}

export function watchesMessages(settings: EventSettings): boolean {
	return settings.events.some(
		(e) => e === 'messageEdited' || e === 'reactionAdded' || e === 'reactionRemoved',
	);
}

/**
 * The settings from the node's parameters, or the message of the first bad one (naming the option).
 */
export function readEventSettings(
	events: unknown,
	options: {
		watchWindow?: unknown;
		groupBursts?: unknown;
		quietPeriod?: unknown;
		maxWait?: unknown;
	},
): EventSettings | string {
	const list = Array.isArray(events) ? events : events === undefined ? ['newMessage'] : [events];
	if (list.length === 0) return 'Events: choose at least one event to start the workflow on';
	const unknown = list.find((e) => !TRIGGER_EVENTS.includes(e as TriggerEvent));
	if (unknown !== undefined) return `Events: "${String(unknown)}" is not an event of this trigger`;
	const number = (value: unknown, fallback: number) =>
		value === undefined || value === '' ? fallback : Number(value);
	const watchWindow = number(options.watchWindow, DEFAULT_WATCH_WINDOW);
	if (!Number.isInteger(watchWindow) || watchWindow < 1 || watchWindow > MAX_WATCH_WINDOW)
		return `Watch Window (Messages) must be a whole number from 1 to ${MAX_WATCH_WINDOW}, not ${String(options.watchWindow)}`;
	const settings: EventSettings = { events: [...new Set(list as TriggerEvent[])], watchWindow };
	if (options.groupBursts === true) {
		if (!settings.events.includes('newMessage'))
			return 'Group Bursts applies to New Message: add New Message to Events, or turn Group Bursts off';
		const quietSeconds = number(options.quietPeriod, 10);
		const maxWaitSeconds = number(options.maxWait, 60);
		if (!Number.isFinite(quietSeconds) || quietSeconds < 1 || quietSeconds > MAX_BURST_WAIT_SECONDS)
			return `Quiet Period (Seconds) must be from 1 to ${MAX_BURST_WAIT_SECONDS}, not ${String(options.quietPeriod)}`;
		if (
			!Number.isFinite(maxWaitSeconds) ||
			maxWaitSeconds < 1 ||
			maxWaitSeconds > MAX_BURST_WAIT_SECONDS
		)
			return `Maximum Wait (Seconds) must be from 1 to ${MAX_BURST_WAIT_SECONDS}, not ${String(options.maxWait)}`;
		if (quietSeconds > maxWaitSeconds)
			return `Quiet Period (Seconds) (${quietSeconds}) must not be longer than Maximum Wait (Seconds) (${maxWaitSeconds})`;
		settings.bursts = { quietSeconds, maxWaitSeconds };
	}
	return settings;
}
