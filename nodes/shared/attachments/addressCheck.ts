/**
 * Each hop of a download checked against the address policy before it is fetched: a URL off the Base
 * URL's origin whose host is, or resolves to, an internal address is refused unless the option allows it.
 * Host names are resolved through n8n's egress filter (the node may not import `dns`); n8n then resolves
 * the name again to connect, so a DNS answer that changes in between (rebinding) is left to n8n's SSRF
 * protection, which checks the address it connects to.
 */
import type { NodeEgressFilter, RequestHelperFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { describeN8nSsrfRefusal, hostProblem, ipProblem, isIpLiteral } from './addressPolicy';
import { DownloadError, type DownloadContext, type DownloadSettings } from './fetchFile';

type Target = { url: string; withToken: boolean } | { problem: string };

const REFUSED = "refused outside the Base URL's origin (option Allow Private Addresses)";

type LookupAll = (
	hostname: string,
	options: { all: true },
	callback: (error: Error | null, addresses: Array<{ address: string }>) => void,
) => void;

/** The target unchanged, or a problem naming the internal address; n8n's own refusal is thrown. */
export async function checkedTarget(
	context: DownloadContext,
	target: Target,
	settings: DownloadSettings,
): Promise<Target> {
	if ('problem' in target || target.withToken || settings.allowPrivateAddresses) return target;
	const { hostname } = new URL(target.url);
	const byText = hostProblem(hostname);
	if (byText) return { problem: `is on ${hostname}, ${byText}: ${REFUSED}` };
	if (isIpLiteral(hostname)) return target;
	for (const address of await resolve(context, hostname, target.url, settings.timeoutMs)) {
		const kind = ipProblem(address);
		if (kind)
			return { problem: `is on ${hostname}, which resolves to ${address}, ${kind}: ${REFUSED}` };
	}
	return target;
}

/**
 * Every address of a name, through n8n's egress filter (on an n8n without one, or when the lookup fails
 * or outlasts the timeout: none, and the download goes on to fail or succeed as it would have).
 */
async function resolve(
	context: DownloadContext,
	hostname: string,
	url: string,
	timeoutMs: number,
): Promise<string[]> {
	const helpers = context.helpers as Partial<RequestHelperFunctions>;
	if (typeof helpers.getSecureEgressFilter !== 'function') return [];
	// Older n8n returns no filter while its SSRF protection is off.
	const filter = helpers.getSecureEgressFilter() as NodeEgressFilter | undefined;
	if (!filter) return [];
	const stop = new AbortController();
	let refusal: string | undefined;
	try {
		const lookup = filter.createSecureLookup() as unknown as LookupAll;
		const answer = new Promise<string[]>((done, fail) =>
			lookup(hostname, { all: true }, (error, addresses) =>
				error ? fail(error) : done(addresses.map((a) => a.address)),
			),
		);
		const late = sleep(timeoutMs, stop.signal).then(
			() => [],
			() => [],
		);
		return await Promise.race([answer, late]);
	} catch (error) {
		// n8n's SSRF protection resolves and checks in one step: its refusal is final.
		refusal = describeN8nSsrfRefusal(error, url);
	} finally {
		stop.abort();
	}
	if (refusal) throw new DownloadError(refusal, false);
	return [];
}
