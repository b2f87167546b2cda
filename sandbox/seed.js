'use strict';
/** Realistic demo data: contacts, a group, conversations pinned, muted, archived and stale, messages with reactions. */

const DAY_MS = 86_400_000;

function seedDemo(store) {
	const realClock = store.clock;
	const at = (daysAgo) => {
		const ms = realClock() - daysAgo * DAY_MS;
		return store.unit === 'ms' ? Math.floor(ms) : Math.floor(ms / 1000);
	};
	const [ann, bob, cy, dana] = [
		{ id: 'ct_ann', username: 'ann' },
		{ id: 'ct_bob', username: 'bob' },
		{ id: 'ct_cy', username: 'cy' },
		{ id: 'ct_dana', username: 'dana' },
	].map((c) => store.addContact({ ...c, createdAt: at(400) }));
	const team = store.addGroup({
		id: 'grp_team',
		name: 'Team',
		contactIds: [ann.id, bob.id, cy.id],
	});

	const talk = (conversation, lines, daysAgo) => {
		lines.forEach(([sender, text], index) => {
			store.sendMessage(
				sender,
				{ conversation_id: conversation.id, message: text },
				{ createdAt: at(daysAgo) + index },
			);
		});
	};

	const withAnn = store.createConversation({ contact_id: ann.id, created_at: at(90) });
	talk(
		withAnn,
		[
			[ann.id, 'Hi! Are we still on for Friday?'],
			['ct_me', 'Yes, 10am works.'],
			[ann.id, 'Great, see you then'],
		],
		1,
	);
	store.updateConversation(withAnn.id, { is_pinned: 'true' });

	const withBob = store.createConversation({ contact_id: bob.id, created_at: at(60) });
	talk(
		withBob,
		[
			[bob.id, 'Daily build report: all green'],
			[bob.id, 'Daily build report: 2 flaky tests'],
		],
		2,
	);
	store.updateConversation(withBob.id, { is_muted: 'true' });

	const withCy = store.createConversation({ contact_id: cy.id, created_at: at(200) });
	talk(withCy, [[cy.id, 'Thanks for the help last year!']], 150);
	store.updateConversation(withCy.id, { archived_at: String(at(100)) });

	const withDana = store.createConversation({ contact_id: dana.id, created_at: at(120) });
	talk(
		withDana,
		[
			[dana.id, 'Can you send me the invoice?'],
			['ct_me', 'Sent it by mail.'],
		],
		45,
	);

	const teamChat = store.createConversation({ group_id: team.id, created_at: at(30) });
	talk(
		teamChat,
		[
			[ann.id, 'Release is ready for review'],
			[cy.id, 'Looks good to me'],
			[bob.id, 'Urgent: the deploy failed'],
		],
		0.5,
	);
	const [release] = store
		.listMessages({ conversation_id: teamChat.id })
		.filter((m) => m.message.startsWith('Release'));
	store.updateMessage(release.id, { reactions: { like: [bob.id, cy.id], rocket: [ann.id] } });
	store.updateConversation(teamChat.id, { pinned_message_id: release.id });
}

module.exports = { seedDemo };
