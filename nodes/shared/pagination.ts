/**
 * Collects records over `{has_more, data}` pages with a `starting_after` cursor (the id of the last
 * record of the previous page). Pure apart from the `fetchPage` it is given, so it is tested alone.
 *
 * Guard against a service that ignores the cursor: a page that brings no record not already seen
 * ends the walk, flagged `incomplete`; it never loops and never returns a record twice.
 */

export interface Page<T> {
	has_more?: boolean;
	data?: T[];
}

export interface Collected<T> {
	records: T[];
	/** The service has more records than were collected (a limit was reached). */
	hasMore: boolean;
	/** The walk stopped because the service did not advance: the result may lack records. */
	incomplete: boolean;
	pages: number;
}

export async function collectPages<T extends { id?: unknown }>(
	fetchPage: (cursor: string | undefined, pageLimit: number) => Promise<Page<T>>,
	options: { max: number; pageSize: number },
): Promise<Collected<T>> {
	const records: T[] = [];
	const seen = new Set<unknown>();
	let cursor: string | undefined;
	let pages = 0;
	for (;;) {
		const page = await fetchPage(cursor, Math.min(options.pageSize, options.max - records.length));
		pages += 1;
		const data = Array.isArray(page.data) ? page.data : [];
		let fresh = 0;
		let leftOver = false;
		for (const record of data) {
			if (seen.has(record.id)) continue;
			seen.add(record.id);
			fresh += 1;
			if (records.length < options.max) records.push(record);
			else leftOver = true;
		}
		const serviceHasMore = page.has_more === true;
		if (records.length >= options.max) {
			return { records, hasMore: serviceHasMore || leftOver, incomplete: false, pages };
		}
		if (!serviceHasMore) return { records, hasMore: false, incomplete: false, pages };
		const last = data[data.length - 1];
		if (fresh === 0 || last?.id === undefined || String(last.id) === cursor) {
			return { records, hasMore: true, incomplete: true, pages };
		}
		cursor = String(last.id);
	}
}
