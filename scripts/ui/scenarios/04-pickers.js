module.exports = { title: '04-pickers (todo)', async run() { throw new Error('todo'); } };
