module.exports = { title: '05-execute (todo)', async run() { throw new Error('todo'); } };
