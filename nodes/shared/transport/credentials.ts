/** The Messaging API credential as the transport uses it, read once per node run. */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { TimestampUnitSetting } from '../timestamps';
import type { RequestContext } from './types';

export const CREDENTIAL_TYPE = 'messagingApi';

export interface MessagingCredentials {
	baseUrl: string;
	accessToken?: string;
	timestampUnit?: TimestampUnitSetting;
	ownContactId?: string;
}

const credentialCache = new WeakMap<object, Promise<ICredentialDataDecryptedObject>>();

/** Once per node run: in n8n each read loads and decrypts it from the database, one at a time. */
export async function credentialData(
	this: RequestContext,
): Promise<ICredentialDataDecryptedObject> {
	let cached = credentialCache.get(this);
	if (!cached) {
		cached = this.getCredentials(CREDENTIAL_TYPE);
		credentialCache.set(this, cached);
		cached.catch(() => credentialCache.delete(this));
	}
	return await cached;
}

/** `context` runs with a credential read already (a trigger activation's, reused between its checks). */
export function useCredentialData(
	context: object,
	data: Promise<ICredentialDataDecryptedObject>,
): void {
	credentialCache.set(context, data);
}

export async function getMessagingCredentials(this: RequestContext): Promise<MessagingCredentials> {
	return (await credentialData.call(this)) as unknown as MessagingCredentials;
}
