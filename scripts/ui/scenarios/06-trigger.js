module.exports = { title: '06-trigger (todo)', async run() { throw new Error('todo'); } };
