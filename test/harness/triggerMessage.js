'use strict';
/** A message as the service lists it to the trigger: `id`, `created_at`, then Ann's defaults unless `fields` say otherwise. */
const msg = (id, created_at, fields = {}) => ({
	id,
	created_at,
	conversation_id: 'c1',
	contact: { id: 'ann' },
	message: `text ${id}`,
	reactions: [],
	updated_at: null,
	...fields,
});

module.exports = { msg };
