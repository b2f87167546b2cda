module.exports = { title: '07-dark-theme (todo)', async run() { throw new Error('todo'); } };
