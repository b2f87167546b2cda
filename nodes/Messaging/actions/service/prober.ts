/** Check Compatibility's requests: each one recorded with its answers; a failure kept for the report unless it stops the check. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PAGE_SIZE, smallerPageSize } from '../../../shared/paginate';
import { MessagingApiError, messagingApiRequest, type ApiRequest } from '../../../shared/transport';
import { encodeForm } from '../../../shared/transport/form';
import type { ExpectedAnswer } from '../../../shared/transport/types';
import { requestPath } from '../../../shared/transport/url';
import type { RunContext } from '../../types';
import type {
	Answer,
	Failure,
	ListName,
	ListProbe,
	MissingProbe,
	WriteProbe,
} from './observations';

/** The ID of the message the error probe asks for: one no service hands out. */
export const MISSING_ID = 'n8n-compatibility-check-no-such-message';

/** A failure that every later probe would meet too: no answer, a refused token, a redirect, the run stopped. */
function stopsTheCheck(error: MessagingApiError): boolean {
	const { status, refusal, httpCode } = error;
	if (status === undefined) return httpCode === undefined || httpCode === null;
	return status === 401 || refusal === 'run' || (status >= 300 && status < 400);
}

/** `GET /v1/messages?limit=100`, as the report lists it. */
function describeRequest(request: ApiRequest): string {
	const query = request.query ? encodeForm(request.query) : '';
	return `${request.method} ${requestPath(request.path)}${query ? `?${query}` : ''}`;
}

type Sent = { value?: IDataObject; failure?: Failure; error?: unknown; answer?: Answer };

/** One item's probes: every request and answer recorded, a failure kept as a finding unless it stops the check. */
export class Prober {
	readonly answers: Answer[] = [];
	readonly requests: string[] = [];

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly run: RunContext,
		private readonly itemIndex: number,
	) {}

	async send(request: ApiRequest, expect?: ExpectedAnswer, note = ''): Promise<Sent> {
		const line = describeRequest(request);
		const mine: Answer[] = [];
		const record = () => {
			const last = mine[mine.length - 1];
			const tries = mine.length > 1 ? ` (${mine.length} attempts)` : '';
			this.requests.push(`${line} → ${last ? `${last.status}${tries}` : 'no answer'}`);
			return last;
		};
		const outcome = await messagingApiRequest
			.call(this.context, request, {
				...this.run.requestOptions(this.itemIndex, expect),
				onAnswer: (answer) => {
					mine.push({ request: line, ...answer });
					this.answers.push(mine[mine.length - 1]);
				},
			})
			.then(
				(value) => ({ value }),
				(error: unknown) => ({ error }),
			);
		const answer = record();
		if ('value' in outcome) return { value: outcome.value, answer };
		const { error } = outcome;
		if (!(error instanceof MessagingApiError)) {
			const { itemIndex } = this;
			throw new NodeOperationError(this.context.getNode(), error as Error, { itemIndex });
		}
		if (stopsTheCheck(error)) {
			error.message = `Check Compatibility stopped at ${line}: ${error.message}${note}`;
			throw error;
		}
		const { message, status, serviceText } = error;
		return { failure: { message, status, serviceText }, error, answer };
	}

	/** The first page at the largest size accepted (refused sizes retried as the paginator does), then the cursor. */
	async list(name: ListName): Promise<ListProbe> {
		const probe: ListProbe = { refused: [] };
		let limit: number | undefined = PAGE_SIZE;
		while (limit !== undefined && !probe.page) {
			const request: ApiRequest = { method: 'GET', path: [name], query: { limit } };
			const sent = await this.send(request, 'list');
			if (sent.value) {
				const more = sent.value.has_more;
				const records = sent.value.data as IDataObject[];
				const hasMore = more === undefined ? undefined : more === true || more === 'true';
				probe.page = { limit, records, hasMore, request: describeRequest(request) };
				break;
			}
			const smaller = smallerPageSize(sent.error, limit);
			if (smaller === undefined) probe.failure = sent.failure;
			else
				probe.refused.push({ limit, reason: sent.failure!.serviceText ?? sent.failure!.message });
			limit = smaller;
		}
		const first = probe.page?.records[0]?.id;
		if (first === undefined || first === null) return probe;
		const after = String(first);
		const request: ApiRequest = {
			method: 'GET',
			path: [name],
			query: { limit: 1, starting_after: after },
		};
		const sent = await this.send(request, 'list');
		const records = sent.value?.data as IDataObject[] | undefined;
		probe.cursor = { after, request: describeRequest(request), records, failure: sent.failure };
		return probe;
	}

	async missing(): Promise<MissingProbe> {
		const request: ApiRequest = { method: 'GET', path: ['messages', MISSING_ID] };
		const sent = await this.send(request);
		const { value: record, failure, answer } = sent;
		return {
			id: MISSING_ID,
			request: describeRequest(request),
			record,
			failure,
			body: answer?.body,
		};
	}

	/** Create, delete, read again: each step only after the one before worked. */
	async write(contactId: string): Promise<WriteProbe> {
		const probe: WriteProbe = { contactId };
		const body = { contact_id: contactId };
		const created = await this.send({ method: 'POST', path: ['conversations'], body }, 'record');
		if (!created.value) return { ...probe, createFailure: created.failure };
		probe.created = created.value;
		const id = String(created.value.id);
		const left = ` (the probe’s conversation ${id} may still be there)`;
		const path = ['conversations', id];
		const deleted = await this.send({ method: 'DELETE', path }, 'none', left);
		if (!deleted.answer || deleted.failure) return { ...probe, deleteFailure: deleted.failure };
		probe.deleted = { status: deleted.answer.status, body: deleted.answer.body };
		const read = await this.send({ method: 'GET', path }, 'record', left);
		probe.afterDelete = read.value
			? 'still there'
			: read.failure?.status === 404
				? 'gone'
				: read.failure;
		return probe;
	}
}
